#ifndef DOCENT_FS_H
#define DOCENT_FS_H

/// The file system type (statfs's f_type magic number) of the file system `path` is on, or
/// -1 with errno set. (statfs is not in Swift's Glibc module.)
long long docent_fs_type(const char *path);
#endif
