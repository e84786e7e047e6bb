// A CUDA injection library (CUDA_INJECTION64_PATH) that writes every kernel, copy, fill and synchronisation of a
// process with its device start and end times, so a program without torch.profiler (cwb) is timed by CUPTI as
// PyTorch's profiler times PyTorch: each kernel's own duration, no synchronisation around it. step_kernel_classes.py reads it.
// Build: gcc -shared -fPIC -O2 -I$CUDA/include cupti_kernel_trace.c -o libcupti_kernel_trace.so -L$CUDA/lib64 -lcupti
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* out;

static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 16u << 20;
    *buffer = aligned_alloc(8, *size);
    *maxRecords = 0;
}

// One line a record: K start end stream name | M start end bytes (copy) | F start end bytes (fill) | S start end type
static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity* record = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10* k = (const CUpti_ActivityKernel10*)record;
            fprintf(out, "K\t%llu\t%llu\t%u\t%s\n", (unsigned long long)k->start, (unsigned long long)k->end,
                    k->streamId, k->name);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6* m = (const CUpti_ActivityMemcpy6*)record;
            fprintf(out, "M\t%llu\t%llu\t%llu\t%u\n", (unsigned long long)m->start, (unsigned long long)m->end,
                    (unsigned long long)m->bytes, (unsigned)m->copyKind);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4* m = (const CUpti_ActivityMemset4*)record;
            fprintf(out, "F\t%llu\t%llu\t%llu\n", (unsigned long long)m->start, (unsigned long long)m->end,
                    (unsigned long long)m->bytes);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) {
            const CUpti_ActivitySynchronization2* s = (const CUpti_ActivitySynchronization2*)record;
            fprintf(out, "S\t%llu\t%llu\t%u\n", (unsigned long long)s->start, (unsigned long long)s->end,
                    (unsigned)s->type);
        }
    }
    free(buffer);
}

static void finish(void) {
    cuptiActivityFlushAll(1);
    fflush(out);
}

int InitializeInjection(void) {
    const char* path = getenv("CUPTI_TRACE_FILE");
    out = fopen(path ? path : "cupti_trace.tsv", "w");
    if (!out) return 0;
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS) return 0;
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    cuptiActivityFlushPeriod(1000);  // records reach the file even if the process ends without exit handlers
    atexit(finish);
    return 1;
}
