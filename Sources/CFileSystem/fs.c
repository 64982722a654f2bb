#include "docent_fs.h"
#include <sys/vfs.h>

long long docent_fs_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return (long long)(unsigned long)info.f_type;
}
