#ifdef __linux__
#include <time.h>

#include "kqueue_emulation.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

// One kqueue is one epoll descriptor plus, per watched descriptor, which of its two filters were added
// and which are enabled. A descriptor is in the epoll set only while one of its filters is enabled:
// epoll reports hang-ups even for an empty mask, and a kqueue whose filters are all disabled stays
// silent, so keeping such a descriptor registered would make the loop spin.
enum {
    READ_ADDED = 1,
    READ_ENABLED = 2,
    WRITE_ADDED = 4,
    WRITE_ENABLED = 8,
    IN_EPOLL_SET = 16,
};

struct emulated_queue {
    int epoll_fd;
    pthread_mutex_t lock;
    uint8_t *filters;
    size_t capacity;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emulated_queue **table;
static size_t table_capacity;

static struct emulated_queue *queue_for(int kq) {
    struct emulated_queue *queue = NULL;
    pthread_mutex_lock(&table_lock);
    if (kq >= 0 && (size_t)kq < table_capacity) queue = table[kq];
    pthread_mutex_unlock(&table_lock);
    return queue;
}

int kqueue(void) {
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) return -1;
    struct emulated_queue *queue = calloc(1, sizeof *queue);
    if (!queue) {
        close(epoll_fd);
        errno = ENOMEM;
        return -1;
    }
    queue->epoll_fd = epoll_fd;
    pthread_mutex_init(&queue->lock, NULL);
    pthread_mutex_lock(&table_lock);
    if ((size_t)epoll_fd >= table_capacity) {
        size_t capacity = table_capacity ? table_capacity : 64;
        while (capacity <= (size_t)epoll_fd) capacity *= 2;
        struct emulated_queue **grown = realloc(table, capacity * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&table_lock);
            free(queue);
            close(epoll_fd);
            errno = ENOMEM;
            return -1;
        }
        memset(grown + table_capacity, 0, (capacity - table_capacity) * sizeof *grown);
        table = grown;
        table_capacity = capacity;
    }
    // A number reused after close(2) of an earlier queue: the earlier state goes with it.
    struct emulated_queue *previous = table[epoll_fd];
    table[epoll_fd] = queue;
    pthread_mutex_unlock(&table_lock);
    if (previous) {
        free(previous->filters);
        free(previous);
    }
    return epoll_fd;
}

static int ensure_capacity(struct emulated_queue *queue, int fd) {
    if ((size_t)fd < queue->capacity) return 0;
    size_t capacity = queue->capacity ? queue->capacity : 256;
    while (capacity <= (size_t)fd) capacity *= 2;
    uint8_t *grown = realloc(queue->filters, capacity);
    if (!grown) return ENOMEM;
    memset(grown + queue->capacity, 0, capacity - queue->capacity);
    queue->filters = grown;
    queue->capacity = capacity;
    return 0;
}

// Brings the epoll set in line with a descriptor's new filter state; 0 or an errno.
static int sync_epoll(struct emulated_queue *queue, int fd, uint8_t *state) {
    uint32_t mask = 0;
    if (*state & READ_ENABLED) mask |= EPOLLIN | EPOLLRDHUP;
    if (*state & WRITE_ENABLED) mask |= EPOLLOUT;
    struct epoll_event event = {.events = mask, .data.fd = fd};
    if (mask == 0) {
        // A descriptor closed by its owner has already left the set: nothing to undo.
        if (*state & IN_EPOLL_SET) epoll_ctl(queue->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        *state &= (uint8_t)~IN_EPOLL_SET;
        return 0;
    }
    int operation = (*state & IN_EPOLL_SET) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(queue->epoll_fd, operation, fd, &event) != 0) {
        // The number was closed and reused since it was watched (MOD finds nothing), or it is
        // already in the set under a state this table lost (ADD finds it): try the other way.
        int retry = (errno == ENOENT) ? EPOLL_CTL_ADD : (errno == EEXIST) ? EPOLL_CTL_MOD : -1;
        if (retry < 0 || epoll_ctl(queue->epoll_fd, retry, fd, &event) != 0) return errno;
    }
    *state |= IN_EPOLL_SET;
    return 0;
}

static int apply_change(struct emulated_queue *queue, const struct kevent *change) {
    if (change->filter != EVFILT_READ && change->filter != EVFILT_WRITE) return EINVAL;
    if (change->ident > (uintptr_t)INT32_MAX) return EBADF;
    int fd = (int)change->ident;
    pthread_mutex_lock(&queue->lock);
    int error = ensure_capacity(queue, fd);
    if (error) {
        pthread_mutex_unlock(&queue->lock);
        return error;
    }
    uint8_t added = change->filter == EVFILT_READ ? READ_ADDED : WRITE_ADDED;
    uint8_t enabled = change->filter == EVFILT_READ ? READ_ENABLED : WRITE_ENABLED;
    uint8_t state = queue->filters[fd];
    if (change->flags & EV_DELETE) {
        if (!(state & added)) error = ENOENT;
        state &= (uint8_t)~(added | enabled);
    } else {
        if (change->flags & EV_ADD) state |= added | enabled;
        else if (!(state & added)) error = ENOENT;
        if (change->flags & EV_ENABLE) state |= enabled;
        if (change->flags & EV_DISABLE) state &= (uint8_t)~enabled;
    }
    if (!error) error = sync_epoll(queue, fd, &state);
    if (!error || (change->flags & EV_DELETE)) queue->filters[fd] = state;
    pthread_mutex_unlock(&queue->lock);
    return error;
}

static void put_event(struct kevent *slot, int fd, int16_t filter, uint16_t flags, intptr_t data) {
    memset(slot, 0, sizeof *slot);
    slot->ident = (uintptr_t)fd;
    slot->filter = filter;
    slot->flags = flags;
    slot->data = data;
}

int kevent(int kq, const struct kevent *changelist, int nchanges, struct kevent *eventlist, int nevents,
           const void *timeout_argument) {
    const struct timespec *timeout = timeout_argument;
    struct emulated_queue *queue = queue_for(kq);
    if (!queue) {
        errno = EBADF;
        return -1;
    }
    int produced = 0;
    for (int index = 0; index < nchanges; index++) {
        int error = apply_change(queue, &changelist[index]);
        if (!error) continue;
        // Darwin's rule: an error goes into the event list while there is room, else kevent fails.
        if (produced >= nevents) {
            errno = error;
            return -1;
        }
        put_event(&eventlist[produced++], (int)changelist[index].ident, changelist[index].filter, EV_ERROR, error);
    }
    if (nevents <= 0 || produced > 0) return produced;

    int milliseconds = -1;
    if (timeout) milliseconds = (int)(timeout->tv_sec * 1000 + (timeout->tv_nsec + 999999) / 1000000);
    struct epoll_event ready[256];
    int wanted = nevents < 256 ? nevents : 256;
    int count = epoll_wait(queue->epoll_fd, ready, wanted, milliseconds);
    if (count < 0) return -1;
    pthread_mutex_lock(&queue->lock);
    for (int index = 0; index < count && produced < nevents; index++) {
        int fd = ready[index].data.fd;
        uint32_t events = ready[index].events;
        uint8_t state = (size_t)fd < queue->capacity ? queue->filters[fd] : 0;
        uint16_t eof = (events & (EPOLLHUP | EPOLLRDHUP)) ? EV_EOF : 0;
        if ((state & READ_ENABLED) && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
            put_event(&eventlist[produced++], fd, EVFILT_READ, eof, 0);
        // A descriptor ready both ways is two events, as on Darwin; with no room left for the second,
        // level triggering reports it again at the next wait.
        if (produced < nevents && (state & WRITE_ENABLED) && (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)))
            put_event(&eventlist[produced++], fd, EVFILT_WRITE, (events & EPOLLHUP) ? EV_EOF : 0, 0);
    }
    pthread_mutex_unlock(&queue->lock);
    return produced;
}
#endif
