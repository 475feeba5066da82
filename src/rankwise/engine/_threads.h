/* Work split over threads, shared by rankwise's C extensions (engine/_rowops.c, io/_trecscan.c). */
#ifndef RANKWISE_THREADS_H
#define RANKWISE_THREADS_H

#include <pthread.h>
#include <stddef.h>

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

#endif
