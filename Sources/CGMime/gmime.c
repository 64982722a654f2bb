// GMime is used from Swift through include/docent_gmime.h; this target only carries that
// header (and, through include/gmime, a link to Debian's /usr/include/gmime-3.0/gmime:
// gmime-3.0.pc's flags include ones SwiftPM refuses, so its pkg-config entry is not used).
