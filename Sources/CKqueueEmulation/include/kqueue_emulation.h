#ifndef FAKEENTRA_KQUEUE_EMULATION_H
#define FAKEENTRA_KQUEUE_EMULATION_H

// kqueue(2) as Darwin's <sys/event.h> declares it, for Linux: only what KqueueQueue uses, so that
// Linux CI compiles the Mac's event backend against the same names (a `struct kevent` and a function
// `kevent` that Swift sees under one name) and runs the server and live tests over it.
#ifdef __linux__
#include <stdint.h>

struct kevent {
    uintptr_t ident;
    int16_t filter;
    uint16_t flags;
    uint32_t fflags;
    intptr_t data;
    void *udata;
};

#define EVFILT_READ (-1)
#define EVFILT_WRITE (-2)

#define EV_ADD 0x0001
#define EV_DELETE 0x0002
#define EV_ENABLE 0x0004
#define EV_DISABLE 0x0008
#define EV_ERROR 0x4000
#define EV_EOF 0x8000

int kqueue(void);
// `timeout` is a `const struct timespec *` as on Darwin. It is spelled `const void *` because naming
// timespec here, declared or included, makes Swift take the type as this module's (or another C
// module's) and every Swift file that uses timespec would then have to import it; `&timeout` passes either way.
int kevent(int kq, const struct kevent *changelist, int nchanges, struct kevent *eventlist, int nevents,
           const void *timeout);
#endif

#endif
