#include "loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int weatherd_library_load(weatherd_library *library, const weatherd_symbol *symbols, size_t count, char *error, size_t size) {
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) {
        /* RTLD_LOCAL: its names stay out of the global scope; RTLD_NOW: a missing one shows here. */
        void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *why = dlerror();
            snprintf(library->reason, sizeof library->reason, "%s (Debian: %s)", why ? why : library->soname, library->package);
            library->state = -1;
        } else {
            library->state = 1;
            for (size_t i = 0; i < count; i++) {
                void *address = dlsym(handle, symbols[i].name);
                if (address == NULL) {
                    snprintf(library->reason, sizeof library->reason, "%s has no %s (Debian: %s, too old?)", library->soname,
                             symbols[i].name, library->package);
                    library->state = -1;
                    break;
                }
                __atomic_store_n(symbols[i].address, address, __ATOMIC_RELEASE);
            }
            /* A library that lacks a function stays mapped (its addresses may be stored): it is not used. */
        }
    }
    int state = library->state;
    if (state < 0 && error != NULL && size > 0) snprintf(error, size, "%s", library->reason);
    pthread_mutex_unlock(&library->lock);
    return state == 1 ? 0 : -1;
}

void weatherd_library_require(int (*load)(char *error, size_t size), const char *name) {
    char reason[320];
    if (load(reason, sizeof reason) == 0) return;
    fprintf(stderr, "weatherd: %s: cannot load its library: %s\n", name, reason);
    abort();
}
