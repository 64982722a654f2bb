#include "docent_media.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <errno.h>

#include <taglib/fileref.h>
#include <taglib/tag.h>
#include <taglib/tiostream.h>
#include <taglib/tpropertymap.h>
#include <taglib/audioproperties.h>
#include <taglib/mpegfile.h>
#include <taglib/flacfile.h>
#include <taglib/vorbisfile.h>
#include <taglib/opusfile.h>
#include <taglib/oggflacfile.h>
#include <taglib/speexfile.h>
#include <taglib/mp4file.h>
#include <taglib/asffile.h>
#include <taglib/wavfile.h>
#include <taglib/aifffile.h>
#include <taglib/apefile.h>
#include <taglib/mpcfile.h>
#include <taglib/wavpackfile.h>
#include <taglib/trueaudiofile.h>
#include <taglib/id3v2tag.h>
#include <taglib/attachedpictureframe.h>
#include <taglib/xiphcomment.h>
#include <taglib/flacpicture.h>
#include <taglib/mp4tag.h>
#include <taglib/mp4coverart.h>
#include <taglib/asftag.h>
#include <taglib/asfpicture.h>

namespace {

/// A read-only TagLib stream over a descriptor, read with pread.
class DescriptorStream : public TagLib::IOStream {
public:
    DescriptorStream(int fd, long long size, const char *name) : fd_(fd), size_(size), name_(name ? name : "") {}

    TagLib::FileName name() const override { return name_.c_str(); }

    TagLib::ByteVector readBlock(unsigned long length) override {
        if (position_ >= size_ || length == 0) return TagLib::ByteVector();
        unsigned long wanted = length;
        if ((long long)wanted > size_ - position_) wanted = (unsigned long)(size_ - position_);
        TagLib::ByteVector block((unsigned int)wanted, 0);
        unsigned long done = 0;
        while (done < wanted) {
            ssize_t n = pread(fd_, block.data() + done, wanted - done, (off_t)(position_ + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += (unsigned long)n;
        }
        block.resize((unsigned int)done);
        position_ += done;
        return block;
    }

    // Never written: TagLib is told the stream is read-only, and these do nothing.
    void writeBlock(const TagLib::ByteVector &) override {}
    void insert(const TagLib::ByteVector &, unsigned long, unsigned long) override {}
    void removeBlock(unsigned long, unsigned long) override {}
    void truncate(long) override {}
    bool readOnly() const override { return true; }
    bool isOpen() const override { return true; }

    void seek(long offset, Position p) override {
        long long base = p == Beginning ? 0 : p == Current ? position_ : size_;
        long long target = base + offset;
        position_ = target < 0 ? 0 : target;
    }
    long tell() const override { return (long)position_; }
    long length() override { return (long)size_; }

private:
    int fd_;
    long long size_;
    long long position_ = 0;
    std::string name_;
};

char *copy(const TagLib::String &value) {
    if (value.isEmpty()) return nullptr;
    std::string utf8 = value.to8Bit(true);
    return strdup(utf8.c_str());
}

const char *formatName(TagLib::File *file) {
    if (dynamic_cast<TagLib::MPEG::File *>(file)) return "MPEG";
    if (dynamic_cast<TagLib::FLAC::File *>(file)) return "FLAC";
    if (dynamic_cast<TagLib::Ogg::Vorbis::File *>(file)) return "Ogg Vorbis";
    if (dynamic_cast<TagLib::Ogg::Opus::File *>(file)) return "Ogg Opus";
    if (dynamic_cast<TagLib::Ogg::FLAC::File *>(file)) return "Ogg FLAC";
    if (dynamic_cast<TagLib::Ogg::Speex::File *>(file)) return "Ogg Speex";
    if (dynamic_cast<TagLib::MP4::File *>(file)) return "MP4";
    if (dynamic_cast<TagLib::ASF::File *>(file)) return "ASF";
    if (dynamic_cast<TagLib::RIFF::WAV::File *>(file)) return "WAV";
    if (dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) return "AIFF";
    if (dynamic_cast<TagLib::APE::File *>(file)) return "APE";
    if (dynamic_cast<TagLib::MPC::File *>(file)) return "Musepack";
    if (dynamic_cast<TagLib::WavPack::File *>(file)) return "WavPack";
    if (dynamic_cast<TagLib::TrueAudio::File *>(file)) return "TrueAudio";
    return "audio";
}

}  // namespace

extern "C" int docent_media_read(int fd, long long size, const char *name, docent_media_info *info) {
    std::memset(info, 0, sizeof *info);
    info->length_ms = info->bitrate_kbps = info->sample_rate = info->channels = -1;
    try {
        DescriptorStream stream(fd, size, name);
        TagLib::FileRef ref(&stream, true, TagLib::AudioProperties::Average);
        if (ref.isNull() || !ref.file()->isValid()) return -1;
        info->format = formatName(ref.file());
        if (TagLib::Tag *tag = ref.tag()) {
            info->title = copy(tag->title());
            info->artist = copy(tag->artist());
            info->album = copy(tag->album());
            info->genre = copy(tag->genre());
            info->comment = copy(tag->comment());
            info->year = tag->year();
            info->track = tag->track();
        }
        TagLib::PropertyMap properties = ref.file()->properties();
        std::string lines;
        for (auto it = properties.begin(); it != properties.end() && lines.size() < (1u << 20); ++it) {
            for (auto value = it->second.begin(); value != it->second.end(); ++value) {
                lines += it->first.to8Bit(true) + "\t" + value->to8Bit(true) + "\n";
            }
        }
        info->properties = lines.empty() ? nullptr : strdup(lines.c_str());
        if (TagLib::AudioProperties *audio = ref.audioProperties()) {
            info->length_ms = audio->lengthInMilliseconds();
            info->bitrate_kbps = audio->bitrate();
            info->sample_rate = audio->sampleRate();
            info->channels = audio->channels();
        }
        return 0;
    } catch (...) {
        docent_media_info_free(info);
        return -1;
    }
}

extern "C" void docent_media_info_free(docent_media_info *info) {
    free(info->title); free(info->artist); free(info->album); free(info->genre); free(info->comment);
    free(info->properties);
    info->title = info->artist = info->album = info->genre = info->comment = info->properties = nullptr;
}

namespace {

/// The front cover of `pictures` (FLAC and Xiph comments), else the first picture.
TagLib::ByteVector chooseFLAC(const TagLib::List<TagLib::FLAC::Picture *> &pictures) {
    for (auto *picture : pictures) {
        if (picture->type() == TagLib::FLAC::Picture::FrontCover) return picture->data();
    }
    return pictures.isEmpty() ? TagLib::ByteVector() : pictures.front()->data();
}

TagLib::ByteVector coverOf(TagLib::File *file) {
    if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (TagLib::ID3v2::Tag *tag = mpeg->ID3v2Tag()) {
            const TagLib::ID3v2::FrameList &frames = tag->frameListMap()["APIC"];
            TagLib::ByteVector first;
            for (auto *frame : frames) {
                auto *picture = dynamic_cast<TagLib::ID3v2::AttachedPictureFrame *>(frame);
                if (!picture) continue;
                if (picture->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover) return picture->picture();
                if (first.isEmpty()) first = picture->picture();
            }
            return first;
        }
    }
    if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        TagLib::ByteVector found = chooseFLAC(flac->pictureList());
        if (found.isEmpty() && flac->xiphComment()) found = chooseFLAC(flac->xiphComment()->pictureList());
        return found;
    }
    if (auto *tag = dynamic_cast<TagLib::Ogg::XiphComment *>(file->tag())) return chooseFLAC(tag->pictureList());
    if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (TagLib::MP4::Tag *tag = mp4->tag(); tag && tag->contains("covr")) {
            TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
            if (!covers.isEmpty()) return covers.front().data();
        }
    }
    if (auto *asf = dynamic_cast<TagLib::ASF::File *>(file)) {
        if (TagLib::ASF::Tag *tag = asf->tag(); tag && tag->contains("WM/Picture")) {
            for (auto &attribute : tag->attribute("WM/Picture")) {
                TagLib::ASF::Picture picture = attribute.toPicture();
                if (picture.isValid()) return picture.picture();
            }
        }
    }
    return TagLib::ByteVector();
}

}  // namespace

extern "C" int docent_media_cover(int fd, long long size, const char *name, unsigned char **bytes, unsigned long *length) {
    *bytes = nullptr;
    *length = 0;
    try {
        DescriptorStream stream(fd, size, name);
        TagLib::FileRef ref(&stream, false);
        if (ref.isNull() || !ref.file()->isValid()) return -1;
        TagLib::ByteVector data = coverOf(ref.file());
        if (data.isEmpty()) return -1;
        *bytes = static_cast<unsigned char *>(malloc(data.size()));
        if (!*bytes) return -1;
        memcpy(*bytes, data.data(), data.size());
        *length = data.size();
        return 0;
    } catch (...) {
        return -1;
    }
}
