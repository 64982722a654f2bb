#ifndef DOCENT_FS_H
#define DOCENT_FS_H

/// The file system type (statfs's f_type magic number) of the file system `path` is on, or
/// -1 with errno set. (statfs is not in Swift's Glibc module.)
long long docent_fs_type(const char *path);

/// Puts thread `thread` (0: the calling one) in the idle I/O class (ioprio_set(2), which
/// glibc does not wrap); 0, or -1 with errno set. Threads and processes it starts inherit it.
int docent_io_idle(int thread);
#endif
