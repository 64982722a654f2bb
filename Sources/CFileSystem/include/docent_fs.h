#ifndef DOCENT_FS_H
#define DOCENT_FS_H

/// The file system type (statfs's f_type magic number) of the file system `path` is on, or
/// -1 with errno set. (statfs is not in Swift's Glibc module.)
long long docent_fs_type(const char *path);

/// Puts thread `thread` (0: the calling one) in the idle I/O class (ioprio_set(2), which
/// glibc does not wrap); 0, or -1 with errno set. Threads and processes it starts inherit it.
int docent_io_idle(int thread);

#include <spawn.h>
#include <sys/types.h>

/// Adds to `actions` the closing of every descriptor from `low` up in the child
/// (posix_spawn_file_actions_addclosefrom_np, glibc 2.34, not in Swift's Glibc module).
int docent_spawn_close_from(posix_spawn_file_actions_t *actions, int low);

/// Writes out everything the file system holding `directory` has in its caches (syncfs(2)),
/// through a descriptor of the directory: 0, or -1 with errno set.
int docent_syncfs_of(const char *directory);

/// A close-on-exec pidfd for process `pid` (pidfd_open(2), Linux 5.3), or -1 with errno set.
int docent_pidfd_open(pid_t pid);

/// A pipe whose two ends are close-on-exec from their making (pipe2 with O_CLOEXEC): no
/// child started meanwhile by another thread inherits them. 0, or -1 with errno set.
int docent_pipe_cloexec(int fds[2]);

/// Catches signal `sig` with a handler that writes its number (one byte) to a pipe that
/// `docent_signal_reader` reads, made on first use (close-on-exec, its write end
/// non-blocking: a flood of signals is never a handler blocked). 0, or -1 with errno set.
int docent_catch_signal(int sig);

/// The read end of the caught signals' pipe, or -1 before `docent_catch_signal`.
int docent_signal_reader(void);

/// Names the calling thread (its first 15 bytes: what `top -H`, `ps -L` and gdb show).
/// 0, or an error number.
int docent_name_thread(const char *name);
#include <stddef.h>
#include <sys/types.h>

/// Sends `length` bytes of `buffer` on the Unix socket `socket` with the descriptor `fd`
/// attached (SCM_RIGHTS: the receiver gets its own descriptor of the same open file). The
/// bytes sent (perhaps fewer than `length`), or -1 with errno set. MSG_NOSIGNAL.
ssize_t docent_send_descriptor(int socket, const void *buffer, size_t length, int fd);

/// Receives at most `length` bytes from the Unix socket `socket` into `buffer`, and the
/// descriptor sent with them, if any, into `*fd` (-1 when none; close-on-exec). The bytes
/// received (0 at the end), or -1 with errno set.
ssize_t docent_receive_descriptor(int socket, void *buffer, size_t length, int *fd);
#endif
