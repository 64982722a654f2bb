#define _GNU_SOURCE
#include "docent_fs.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

long long docent_fs_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return (long long)(unsigned long)info.f_type;
}

int docent_io_idle(int thread) {
    /* IOPRIO_WHO_PROCESS (1), IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE (3), 0) (linux/ioprio.h). */
    return (int)syscall(SYS_ioprio_set, 1, thread, 3 << 13);
}

int docent_spawn_close_from(posix_spawn_file_actions_t *actions, int low) {
    return posix_spawn_file_actions_addclosefrom_np(actions, low);
}

int docent_pidfd_open(pid_t pid) {
    /* Every pidfd is close-on-exec (pidfd_open(2)). */
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int docent_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static int signal_pipe[2] = {-1, -1};
static pthread_once_t signal_pipe_once = PTHREAD_ONCE_INIT;

static void make_signal_pipe(void) {
    if (pipe2(signal_pipe, O_CLOEXEC) != 0) return;
    fcntl(signal_pipe[1], F_SETFL, fcntl(signal_pipe[1], F_GETFL) | O_NONBLOCK);
}

static void write_signal(int sig) {
    int saved = errno;
    unsigned char number = (unsigned char)sig;
    (void)!write(signal_pipe[1], &number, 1);
    errno = saved;
}

int docent_catch_signal(int sig) {
    pthread_once(&signal_pipe_once, make_signal_pipe);
    if (signal_pipe[0] < 0) return -1;
    struct sigaction action = {0};
    action.sa_handler = write_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(sig, &action, NULL);
}

int docent_signal_reader(void) {
    return signal_pipe[0];
}

int docent_name_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened);
}

int docent_syncfs_of(const char *directory) {
    int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = syncfs(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

ssize_t docent_send_descriptor(int socket, const void *buffer, size_t length, int fd) {
    struct iovec part = {.iov_base = (void *)buffer, .iov_len = length};
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    ssize_t sent;
    do { sent = sendmsg(socket, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t docent_receive_descriptor(int socket, void *buffer, size_t length, int *fd) {
    *fd = -1;
    struct iovec part = {.iov_base = buffer, .iov_len = length};
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * 4)]; } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    ssize_t received;
    do { received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int fds[4];
        memcpy(fds, CMSG_DATA(header), sizeof(int) * (count < 4 ? count : 4));
        /* One descriptor is expected; any more are closed, never leaked. */
        for (int i = 0; i < count && i < 4; i++) {
            if (*fd < 0) *fd = fds[i]; else close(fds[i]);
        }
    }
    return received;
}
