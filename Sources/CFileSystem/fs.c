#include "docent_fs.h"
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
