/* SIGHUP: the configuration read again (profiles, limits, tokens, room
 * sets) and swapped in while the daemon runs (reload.c). Loop thread. */
#ifndef DUNGEOND_RELOAD_H
#define DUNGEOND_RELOAD_H

#include "server.h"

/* Loads s->config_path and its room sets; when both are good, makes them
 * the live configuration (generation + 1) and logs "config_reloaded", else
 * logs "config_reload_failed" and leaves everything as it was. Keys the
 * running process cannot change (listeners, workers, the transport's
 * limits) keep their values and are named in the log line. */
void server_reload(server *daemon);

/* Frees the configurations a reload replaced once no job uses their room
 * sets (`all`: every one, the daemon has stopped). */
void server_release_configs(server *daemon, bool all);

#endif
