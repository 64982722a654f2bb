#!/bin/bash
# Builds a set of typed sample files with the tools this machine has (ffmpeg, ImageMagick,
# pandoc, zip/tar/compressors, sqlite3, openssl, gpg, Python), each written by a real program
# in a known format, and lists what each one is: OUT/EXPECTED.tsv (path, MIME type).
#
# A stand-in for an independent typed sample set: the files are written by the formats' own
# tools, not by Docent; `docent-bench typed OUT` scores Docent, shared-mime-info (gio) and
# libmagic (file) against the list. Samples also go to OUT/unnamed/ without their names.
#
# Usage: Benchmarks/make-typed-samples.sh [OUT]   (default /tmp/docent-bench/typed)
set -u
OUT=${1:-/tmp/docent-bench/typed}
rm -rf "$OUT"
mkdir -p "$OUT/named" "$OUT/unnamed"
cd "$OUT/named" || exit 1
EXPECTED="$OUT/EXPECTED.tsv"
: > "$EXPECTED"
have() { command -v "$1" > /dev/null; }
# expect FILE MIME: records FILE (when it was written) with its type.
expect() { [ -s "$1" ] && printf 'named/%s\t%s\n' "$1" "$2" >> "$EXPECTED"; }
quiet() { "$@" > /dev/null 2>&1; }

if have ffmpeg; then
  ff() { quiet ffmpeg -nostdin -y -hide_banner "$@"; }
  A="-f lavfi -i sine=frequency=440:duration=1"
  V="-f lavfi -i testsrc=size=96x64:rate=10:duration=1"
  ff $A song.wav;                           expect song.wav audio/x-wav
  ff $A -c:a flac song.flac;                expect song.flac audio/flac
  ff $A -c:a libvorbis song.ogg;            expect song.ogg audio/x-vorbis+ogg
  ff $A -c:a libvorbis song.oga;            expect song.oga audio/x-vorbis+ogg
  ff $A -c:a libopus voice.opus;            expect voice.opus audio/x-opus+ogg
  ff $A -c:a libopus -f ogg voice.ogg;      expect voice.ogg audio/x-opus+ogg
  ff $A -c:a flac -f ogg lossless.oga;      expect lossless.oga audio/x-flac+ogg
  ff $A -c:a libspeex -ar 16000 talk.spx;   expect talk.spx audio/x-speex+ogg
  ff $A -c:a libmp3lame song.mp3;           expect song.mp3 audio/mpeg
  ff $A -c:a aac -f adts song.aac;          expect song.aac audio/aac
  ff $A -c:a aac song.m4a;                  expect song.m4a audio/mp4
  ff $A song.aiff;                          expect song.aiff audio/x-aiff
  ff $A song.au;                            expect song.au audio/basic
  ff $A -c:a wmav2 song.wma;                expect song.wma audio/x-ms-wma
  ff $A -c:a ac3 song.ac3;                  expect song.ac3 audio/ac3
  ff $A -c:a libopus song.mka;              expect song.mka audio/x-matroska
  ff $A -f caf song.caf;                    expect song.caf audio/x-caf
  ff $A -f voc song.voc;                    expect song.voc audio/x-voc
  ff $A -f tta song.tta;                    expect song.tta audio/x-tta
  ff $A -f wv song.wv;                      expect song.wv audio/x-wavpack
  ff $V -c:v libx264 -pix_fmt yuv420p clip.mp4;  expect clip.mp4 video/mp4
  ff $V -c:v libx264 clip.mkv;              expect clip.mkv video/x-matroska
  ff $V -c:v libvpx clip.webm;              expect clip.webm video/webm
  ff $V -c:v mpeg4 clip.avi;                expect clip.avi video/x-msvideo
  ff $V -c:v libx264 clip.mov;              expect clip.mov video/quicktime
  ff $V -c:v flv1 clip.flv;                 expect clip.flv video/x-flv
  ff $V -c:v mpeg2video -f mpegts clip.ts;  expect clip.ts video/mp2t
  ff $V -c:v mpeg2video -f mpegts clip.m2ts; expect clip.m2ts video/mp2t
  ff $V -c:v mpeg1video -f mpeg clip.mpg;   expect clip.mpg video/mpeg
  ff $V -c:v libtheora clip.ogv;            expect clip.ogv video/x-theora+ogg
  ff $V -c:v libtheora -f ogg clip.ogg;     expect clip.ogg video/x-theora+ogg
  ff $V -c:v mpeg4 -s 176x144 clip.3gp;     expect clip.3gp video/3gpp
  ff $V -c:v wmv2 clip.wmv;                 expect clip.wmv video/x-ms-wmv
  ff $V -f gif anim.gif;                    expect anim.gif image/gif
  ff $V -f apng -plays 0 anim.apng;         expect anim.apng image/apng
  ff $V -frames:v 1 frame.png;              expect frame.png image/png
  ff $V -frames:v 1 frame.jpg;              expect frame.jpg image/jpeg
  ff $V -frames:v 1 -c:v libwebp frame.webp; expect frame.webp image/webp
  ff $V -frames:v 1 frame.bmp;              expect frame.bmp image/bmp
  ff $V -frames:v 1 frame.tiff;             expect frame.tiff image/tiff
  ff $V -frames:v 1 -s 32x32 frame.ico;     expect frame.ico image/vnd.microsoft.icon
  ff $V -frames:v 1 frame.tga;              expect frame.tga image/x-tga
  ff $V -frames:v 1 frame.ppm;              expect frame.ppm image/x-portable-pixmap
  ff $V -frames:v 1 -pix_fmt gray frame.pgm; expect frame.pgm image/x-portable-graymap
  ff $V -frames:v 1 -pix_fmt monow frame.pbm; expect frame.pbm image/x-portable-bitmap
  ff $V -frames:v 1 frame.pcx;              expect frame.pcx image/vnd.zbrush.pcx
  ff $V -frames:v 1 frame.sgi;              expect frame.sgi image/x-sgi
  ff $V -frames:v 1 -f sunrast frame.ras;   expect frame.ras image/x-sun-raster
  ff $V -frames:v 1 frame.xwd;              expect frame.xwd image/x-xwindowdump
  ff $V -frames:v 1 frame.jp2;              expect frame.jp2 image/jp2
  ff $A -f srt -i <(printf '1\n00:00:00,000 --> 00:00:01,000\nHello\n') subs.srt; expect subs.srt application/x-subrip
fi

if have convert; then
  quiet convert -size 48x32 gradient:blue-red pic.png
  quiet convert pic.png pic.xpm;   expect pic.xpm image/x-xpixmap
  quiet convert pic.png -monochrome pic.xbm; expect pic.xbm image/x-xbitmap
  quiet convert pic.png pic.pdf;   expect pic.pdf application/pdf
  quiet convert pic.png pic.ps;    expect pic.ps application/postscript
  quiet convert pic.png pic.eps;   expect pic.eps image/x-eps
  quiet convert pic.png pic.psd;   expect pic.psd image/vnd.adobe.photoshop
  quiet convert pic.png pic.miff;  expect pic.miff image/x-miff
  quiet convert pic.png pic.dds;   expect pic.dds image/x-dds
  quiet convert pic.png pic.exr;   expect pic.exr image/x-exr
  quiet convert pic.png pic.hdr;   expect pic.hdr image/x-hdr
  quiet convert pic.png pic.fits;  expect pic.fits image/fits
  quiet convert pic.png pic.pict;  expect pic.pict image/x-pict
  quiet convert pic.png pic.svg;   expect pic.svg image/svg+xml
  quiet convert pic.png pic.wbmp;  expect pic.wbmp image/vnd.wap.wbmp
  quiet convert pic.png pic.xcf 2> /dev/null
  quiet convert pic.png pic.pam;   expect pic.pam image/x-portable-anymap
  quiet convert pic.png pic.avif;  expect pic.avif image/avif
  quiet convert pic.png pic.heic;  expect pic.heic image/heif
  quiet convert pic.png pic.jxl;   expect pic.jxl image/jxl
  quiet convert pic.png pic.djvu
  rm -f pic.png
fi

if have pandoc; then
  SRC=$(mktemp --suffix=.md)
  printf '# Quarterly notes\n\nThe *plan* for the quarter, with a [link](https://example.org).\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' > "$SRC"
  pd() { quiet pandoc -s "$SRC" -o "$@"; }
  pd notes.docx;  expect notes.docx application/vnd.openxmlformats-officedocument.wordprocessingml.document
  pd notes.odt;   expect notes.odt application/vnd.oasis.opendocument.text
  pd notes.pptx;  expect notes.pptx application/vnd.openxmlformats-officedocument.presentationml.presentation
  pd notes.epub;  expect notes.epub application/epub+zip
  pd notes.rtf;   expect notes.rtf application/rtf
  pd notes.html;  expect notes.html text/html
  pd notes.tex;   expect notes.tex text/x-tex
  pd notes.rst;   expect notes.rst text/x-rst
  pd notes.org;   expect notes.org text/org
  pd notes.1 -t man; expect notes.1 application/x-troff-man
  pd notes.texi -t texinfo; expect notes.texi text/x-texinfo
  pd notes.dbk -t docbook; expect notes.dbk application/x-docbook+xml
  pd notes.fb2;   expect notes.fb2 application/x-fictionbook+xml
  pd notes.ipynb; expect notes.ipynb application/x-ipynb+json
  pd notes.opml;  expect notes.opml text/x-opml+xml
  pd notes.typ -t typst; expect notes.typ text/x-typst
  pd notes.xml -t jats; expect notes.xml application/xml
  cp "$SRC" notes.md; expect notes.md text/markdown
  rm -f "$SRC"
fi

# Archives and compressors.
printf 'one\ntwo\nthree\n' > member.txt
have zip && quiet zip -q bundle.zip member.txt && expect bundle.zip application/zip
if have zip; then
  mkdir -p jar/META-INF && printf 'Manifest-Version: 1.0\nMain-Class: Main\n' > jar/META-INF/MANIFEST.MF
  (cd jar && quiet zip -q -r ../app.jar META-INF) && expect app.jar application/x-java-archive
  rm -rf jar
fi
tar -cf bundle.tar member.txt && expect bundle.tar application/x-tar
tar -czf bundle.tar.gz member.txt && expect bundle.tar.gz application/x-compressed-tar
tar -czf bundle.tgz member.txt && expect bundle.tgz application/x-compressed-tar
tar -cjf bundle.tar.bz2 member.txt && expect bundle.tar.bz2 application/x-bzip-compressed-tar
tar -cJf bundle.tar.xz member.txt && expect bundle.tar.xz application/x-xz-compressed-tar
have zstd && tar --zstd -cf bundle.tar.zst member.txt && expect bundle.tar.zst application/x-zstd-compressed-tar
gzip -c member.txt > member.txt.gz && expect member.txt.gz application/gzip
bzip2 -c member.txt > member.txt.bz2 && expect member.txt.bz2 application/x-bzip
xz -c member.txt > member.txt.xz && expect member.txt.xz application/x-xz
have zstd && zstd -q -c member.txt > member.txt.zst && expect member.txt.zst application/zstd
have lz4 && lz4 -q -c member.txt > member.txt.lz4 && expect member.txt.lz4 application/x-lz4
ar rc lib.a member.txt 2> /dev/null && expect lib.a application/x-archive
if have dpkg-deb; then
  mkdir -p pkg/DEBIAN && printf 'Package: sample\nVersion: 1.0\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: sample\n' > pkg/DEBIAN/control
  quiet dpkg-deb --build pkg sample.deb && expect sample.deb application/vnd.debian.binary-package
  rm -rf pkg
fi
rm -f member.txt

# Data, keys and certificates.
have sqlite3 && sqlite3 data.sqlite 'create table t(x); insert into t values (1);' && expect data.sqlite application/vnd.sqlite3
have sqlite3 && sqlite3 data.db 'create table t(x);' && expect data.db application/vnd.sqlite3
if have openssl; then
  quiet openssl req -x509 -newkey rsa:1024 -nodes -keyout key.pem -subj /CN=sample -days 2 -out cert.pem
  expect cert.pem application/x-x509-ca-cert
  cp cert.pem cert.crt; expect cert.crt application/x-x509-ca-cert
  quiet openssl x509 -in cert.pem -outform der -out cert.der; expect cert.der application/x-x509-ca-cert
  cp cert.pem cert.cer; expect cert.cer application/pkix-cert
  quiet openssl crl2pkcs7 -nocrl -certfile cert.pem -outform der -out bundle.p7b; expect bundle.p7b application/x-pkcs7-certificates
  quiet openssl pkcs12 -export -in cert.pem -inkey key.pem -passout pass:x -out bundle.p12; expect bundle.p12 application/pkcs12
  rm -f key.pem
fi
if have gpg; then
  export GNUPGHOME=$(mktemp -d)
  printf 'secret words\n' > plain.txt
  quiet gpg --batch --yes --passphrase x --pinentry-mode loopback -c -o plain.txt.gpg plain.txt && expect plain.txt.gpg application/pgp-encrypted
  quiet gpg --batch --yes --passphrase x --pinentry-mode loopback -c -a -o plain.txt.asc plain.txt && expect plain.txt.asc application/pgp-encrypted
  rm -rf "$GNUPGHOME" plain.txt
fi

# Text formats, written here by hand in each format's own syntax.
w() { printf '%b' "$2" > "$1"; expect "$1" "$3"; }
w mail.eml 'Received: from a.example.org by b.example.net\nFrom: Ada <ada@example.org>\nTo: bob@example.net\nSubject: plans\nContent-Type: text/html\n\n<html><body><p>Tuesday</p></body></html>\n' message/rfc822
w offer.eml 'Delivered-To: bob@example.net\nMIME-Version: 1.0\nContent-Type: text/html\n\n<!DOCTYPE html><html><body>Offer</body></html>\n' message/rfc822
w contact.vcf 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nEND:VCARD\n' text/vcard
w meeting.ics 'BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nSUMMARY:Plan\nEND:VEVENT\nEND:VCALENDAR\n' text/calendar
w table.csv 'name,born\nAda,1815\n' text/csv
w table.tsv 'name\tborn\nAda\t1815\n' text/tab-separated-values
w data.json '{"name": "Ada", "born": 1815}\n' application/json
w schema.json '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}\n' application/schema+json
w config.yaml 'name: Ada\nborn: 1815\n' application/x-yaml
w config.toml '[owner]\nname = "Ada"\n' application/toml
w settings.ini '[main]\nname=Ada\n' text/plain
w feed.rss '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title></channel></rss>\n' application/rss+xml
w feed.atom '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>\n' application/atom+xml
w news.xml '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title></channel></rss>\n' application/rss+xml
w window.ui '<?xml version="1.0" encoding="UTF-8"?>\n<interface>\n  <object class="GtkWindow" id="w"/>\n</interface>\n' application/x-gtk-builder
w dialog.ui '<?xml version="1.0" encoding="UTF-8"?>\n<ui version="4.0">\n <class>Dialog</class>\n</ui>\n' application/x-designer
w app_de.ts '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n<context><name>M</name></context>\n</TS>\n' text/vnd.trolltech.linguist
w track.gpx '<?xml version="1.0"?>\n<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk/></gpx>\n' application/gpx+xml
w map.kml '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>\n' application/vnd.google-earth.kml+xml
w style.xsl '<?xml version="1.0"?>\n<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"/>\n' application/xslt+xml
w page.xhtml '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body/></html>\n' application/xhtml+xml
w plot.m '% plot a sine\nx = linspace(0, 2*pi);\nplot(x, sin(x));\n' text/x-matlab
w main.m '#import <Foundation/Foundation.h>\nint main(void) { return 0; }\n' text/x-objcsrc
w movie.sub '{1}{72}Hello there.\n{73}{140}General Kenobi.\n' text/x-microdvd
w movie2.sub '[INFORMATION]\n[TITLE]Movie\n[END INFORMATION]\n' text/x-subviewer
w subs.vtt 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n' text/vtt
w subs.ass '[Script Info]\nScriptType: v4.00+\n' text/x-ssa
w icon2.xbm '#define icon_width 8\n#define icon_height 1\nstatic unsigned char icon_bits[] = { 0xff };\n' image/x-xbitmap
w script.py '#!/usr/bin/env python3\nprint("hi")\n' text/x-python3
w script.sh '#!/bin/sh\necho hi\n' application/x-shellscript
w script.pl '#!/usr/bin/perl\nprint "hi\\n";\n' application/x-perl
w script.rb 'puts "hi"\n' application/x-ruby
w script.lua 'print("hi")\n' text/x-lua
w script.tcl 'puts hi\n' text/tcl
w hello.c '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' text/x-csrc
w hello.h '#pragma once\nint hello(void);\n' text/x-chdr
w hello.cpp '#include <iostream>\nint main() { std::cout << "hi"; }\n' text/x-c++src
w hello.go 'package main\nfunc main() {}\n' text/x-go
w hello.rs 'fn main() { println!("hi"); }\n' text/rust
w hello.java 'class Hello { public static void main(String[] a) {} }\n' text/x-java
w hello.kt 'fun main() = println("hi")\n' text/x-kotlin
w hello.swift 'print("hi")\n' text/x-swift
w hello.js 'console.log("hi");\n' application/javascript
w hello.ts 'const x: number = 1;\nexport function f(a: string): string { return a; }\n' application/x-typescript
w hello.css 'body { color: red; }\n' text/css
w hello.sql 'SELECT 1;\n' application/sql
w hello.php '<?php echo "hi"; ?>\n' application/x-php
w hello.hs 'main = putStrLn "hi"\n' text/x-haskell
w hello.scala 'object Hello extends App { println("hi") }\n' text/x-scala
w hello.cs 'class Hello { static void Main() {} }\n' text/x-csharp
w hello.vala 'void main () { print ("hi"); }\n' text/x-vala
w hello.nim 'echo "hi"\n' text/x-nim
w hello.jl 'println("hi")\n' text/julia
w default.nix '{ pkgs ? import <nixpkgs> {} }: pkgs.hello\n' text/x-nix
w flow.puml '@startuml\nA -> B\n@enduml\n' text/x-plantuml
w app.slint 'export component App inherits Window { }\n' text/x-slint
w install.ps1 'Write-Host "hi"\n' application/x-powershell
w Makefile 'all:\n\ttrue\n' text/x-makefile
w CMakeLists.txt 'project(x)\n' text/x-cmake
w meson.build "project('x', 'c')\n" text/x-meson
w Dockerfile 'FROM debian:12\n' text/x-dockerfile
w robots.txt 'User-agent: *\nDisallow: /\n' text/x-robots
w patch.diff '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' text/x-patch
w README.txt 'Read me.\n' text/plain
w page.html '<!DOCTYPE html>\n<html><head><title>x</title></head><body>hi</body></html>\n' text/html
w doc.svg '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n' image/svg+xml
w doc.desktop '[Desktop Entry]\nType=Application\nName=x\nExec=x\n' application/x-desktop
w unit.service '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n' text/x-systemd-unit
w notes.bib '@book{x, title={X}}\n' text/x-bibtex
w messages.po 'msgid "hi"\nmsgstr "hallo"\n' text/x-gettext-translation

# Binaries written by real programs.
if have python3; then
  python3 - << 'PY'
import py_compile, shutil, os, struct, zlib
open('mod.py', 'w').write('x = 1\n')
py_compile.compile('mod.py', cfile='mod.pyc')
os.remove('mod.py')
with open('Main.class', 'wb') as f:   # a minimal class file header, as javac writes it
    f.write(bytes.fromhex('cafebabe0000003d') + b'\x00\x0d' + b'\x01' * 120)
PY
  expect mod.pyc application/x-python-bytecode
  expect Main.class application/x-java
fi
cp /bin/true program && expect program application/x-pie-executable
for lib in /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1; do
  [ -f "$lib" ] && cp "$lib" libz.so.1 && expect libz.so.1 application/x-sharedlib && break
done
for font in /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf; do [ -f "$font" ] && cp "$font" font.ttf && expect font.ttf font/ttf; done
for font in $(find /usr/share/fonts -name '*.otf' 2> /dev/null | head -1); do cp "$font" font.otf && expect font.otf font/otf; done
for font in $(find /usr/share/fonts -name '*.pcf.gz' 2> /dev/null | head -1); do cp "$font" font.pcf.gz && expect font.pcf.gz application/x-font-pcf; done
for font in $(find /usr/share/fonts -name '*.woff2' 2> /dev/null | head -1); do cp "$font" font.woff2 && expect font.woff2 font/woff2; done
for font in $(find /usr/share/fonts -name '*.woff' 2> /dev/null | head -1); do cp "$font" font.woff && expect font.woff font/woff; done

# The same bytes without their names.
while IFS=$'\t' read -r path mime; do
  name=${path#named/}
  cp "$OUT/$path" "$OUT/unnamed/$(echo "$name" | tr '.' '_')"
  printf 'unnamed/%s\t%s\n' "$(echo "$name" | tr '.' '_')" "$mime" >> "$EXPECTED.unnamed"
done < "$EXPECTED"
cat "$EXPECTED.unnamed" >> "$EXPECTED" && rm -f "$EXPECTED.unnamed"
echo "$(grep -c '^named/' "$EXPECTED") named samples, $(grep -c '^unnamed/' "$EXPECTED") unnamed, in $OUT"
