/* Work split over threads, shared by rankwise's C extensions (engine/_rowops.c, io/_trecscan.c). */
#ifndef RANKWISE_THREADS_H
#define RANKWISE_THREADS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_THREADS 64

/* Run fn over tasks[0..count-1] (count <= MAX_THREADS, each task ``size`` bytes), each in its own thread but the
 * first (in this one); a thread that cannot be had leaves its task to this one. */
static void run_all(void *(*fn)(void *), void *tasks, size_t size, int count) {
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < count; t++) started[t] = pthread_create(&ids[t], NULL, fn, (char *)tasks + t * size) == 0;
    fn(tasks);
    for (int t = 1; t < count; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            fn((char *)tasks + t * size);
    }
}

/* Query q0 of thread t's range: the first query whose rows start at or after t/threads of all rows. */
static int64_t range_start(const int64_t *offsets, int64_t num_queries, int t, int threads) {
    int64_t target = offsets[num_queries] / threads * t, lo = 0, hi = num_queries;
    if (t == 0) return 0;
    if (t == threads) return num_queries;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
