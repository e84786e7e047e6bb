// LD_PRELOAD sampling profiler for a host path on a machine without perf (the lent GPU machine): SIGPROF every
// SAMPLER_US microseconds of wall time on the main thread, backtrace() into a buffer, written with /proc/self/maps
// to SAMPLER_OUT.PID.txt at exit. Build: gcc -O2 -shared -fPIC -o libsampler.so sampler.c; symbolize: report.py.
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 40
#define MAX_SAMPLES 200000

static void** frames;
static int* depths;
static volatile int count;

static void onSample(int signal) {
    (void)signal;
    const int i = count;
    if (i >= MAX_SAMPLES) return;
    count = i + 1;
    depths[i] = backtrace(frames + (size_t)i * DEPTH, DEPTH);
}

__attribute__((constructor)) static void start(void) {
    if (!getenv("SAMPLER_OUT")) return;
    frames = calloc((size_t)MAX_SAMPLES * DEPTH, sizeof(void*));
    depths = calloc(MAX_SAMPLES, sizeof(int));
    void* warm[4];
    backtrace(warm, 4);  // loads the unwinder now, not inside the signal handler
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = onSample;
    action.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &action, 0);
    const long us = getenv("SAMPLER_US") ? atol(getenv("SAMPLER_US")) : 250;
    // A POSIX timer on the monotonic clock aimed at this (the main) thread: ITIMER_PROF ticks at the kernel's HZ.
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGPROF;
    event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t timer;
    timer_create(CLOCK_MONOTONIC, &event, &timer);
    struct itimerspec period = {{0, us * 1000L}, {0, us * 1000L}};
    timer_settime(timer, 0, &period, 0);
}

__attribute__((destructor)) static void stop(void) {
    const char* out = getenv("SAMPLER_OUT");
    if (!out || !frames) return;
    signal(SIGPROF, SIG_IGN);
    char path[4096];
    snprintf(path, sizeof path, "%s.%d.txt", out, getpid());
    FILE* file = fopen(path, "w");
    if (!file) return;
    FILE* maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) fprintf(file, "M %s", line);
    if (maps) fclose(maps);
    for (int i = 0; i < count; ++i) {
        fprintf(file, "S");
        for (int d = 0; d < depths[i]; ++d) fprintf(file, " %lx", (unsigned long)frames[(size_t)i * DEPTH + d]);
        fprintf(file, "\n");
    }
    fclose(file);
}
