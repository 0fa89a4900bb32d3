#ifndef WEATHERD_ON_DEMAND_LOADER_H
#define WEATHERD_ON_DEMAND_LOADER_H

#include <pthread.h>
#include <stddef.h>
#include "on_demand.h"

/* One function of a library: its name, and where its address goes. */
typedef struct {
    const char *name;
    void **address;
} weatherd_symbol;

/* One library: its soname, the Debian package that has it, and how its loading went. */
typedef struct {
    const char *soname;
    const char *package;
    pthread_mutex_t lock;
    int state; /* 0 not tried, 1 loaded, -1 failed (reason in `reason`) */
    char reason[256];
} weatherd_library;

#define WEATHERD_LIBRARY(soname, package) {soname, package, PTHREAD_MUTEX_INITIALIZER, 0, {0}}

/*
 * A library function's definition here: hidden, so that it never enters the executable's dynamic
 * symbol table, where the library itself would find it in place of its own function.
 */
#define WEATHERD_STUB __attribute__((visibility("hidden")))

/* Loads `library` and its `symbols` once; see on_demand.h. */
int weatherd_library_load(weatherd_library *library, const weatherd_symbol *symbols, size_t count, char *error, size_t size);

/*
 * For `name`, a function called before its library was asked for (by a caller that did not ask
 * first, such as a test linked with the library itself): loads it with `load`, or aborts with the
 * reason it cannot be.
 */
void weatherd_library_require(int (*load)(char *error, size_t size), const char *name);

/*
 * The library's function `name`, read once the loader has stored it (an acquire load: a thread
 * that saw its library loaded sees every address), loaded first if nobody asked yet: each file
 * names its library's loader `WEATHERD_LOADER`.
 */
#define WEATHERD_CALL(name)                                                     \
    (__atomic_load_n(&weatherd_##name, __ATOMIC_ACQUIRE) != NULL               \
         ? __atomic_load_n(&weatherd_##name, __ATOMIC_ACQUIRE)                 \
         : (weatherd_library_require(WEATHERD_LOADER, #name), __atomic_load_n(&weatherd_##name, __ATOMIC_ACQUIRE)))

#endif
