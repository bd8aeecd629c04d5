/* SPDX-License-Identifier: MIT */
/*
 * A long-running server whose request handler is replaced while it runs,
 * without a restart and without losing a request.
 *
 * It reads lines on stdin.  Each line is a request, answered on stdout as
 * "#N reply" by one of its worker threads, N counting the requests from 1,
 * or one of these commands, which the reading thread carries out while
 * the workers go on answering:
 *
 *   update FILE   load FILE (a shared object) and send every call of
 *                 handle_request to the handle_request it defines
 *   rollback      send them back to the version built into the program,
 *                 and unload FILE
 *   wait          read on once every request read so far is answered
 *   quit          (or the end of input) answer what is left and exit
 *
 * The server's messages go to stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <multiverse.h>
#include "handler.h"

enum { WORKERS = 4, QUEUE = 64, TEXT = 64 };

/* Version 1.  A plain multiversed function (no switch in it) is how a
 * function is marked for replacement: the plugin records its call sites,
 * which multiverse_redirect() can then bind to another function. */
__attribute__((multiverse)) void handle_request(struct state *st, const char *request,
						 char *reply, size_t size)
{
	struct timespec work = { 0, REQUEST_MICROSECONDS * 1000 };

	st->served++;
	nanosleep(&work, NULL);
	snprintf(reply, size, "v1 hello, %s", request);
}

static struct state state;

/* The requests read and not yet taken by a worker: a ring.  The reader
 * waits while it is full, so that a burst of input is still being
 * answered when a command after it is carried out. */
static struct { unsigned long id; char text[TEXT]; } queue[QUEUE];
static unsigned long n_read, n_taken, n_answered;
static int stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

/* Odd while the worker is inside the handler.  Whoever unloads a
 * version must wait for the calls in it to return: a call that entered
 * the old code finishes there. */
static _Atomic unsigned long calls[WORKERS];

static void *worker(void *arg)
{
	_Atomic unsigned long *inside = arg;
	char text[TEXT], reply[160];
	unsigned long id;

	for (;;) {
		pthread_mutex_lock(&lock);
		while (n_taken == n_read && !stopping)
			pthread_cond_wait(&changed, &lock);
		if (n_taken == n_read) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		id = queue[n_taken % QUEUE].id;
		memcpy(text, queue[n_taken % QUEUE].text, TEXT);
		n_taken++;
		pthread_cond_broadcast(&changed);
		pthread_mutex_unlock(&lock);

		(*inside)++;
		handle_request(&state, text, reply, sizeof reply);
		(*inside)++;
		printf("#%lu %s\n", id, reply);

		pthread_mutex_lock(&lock);
		n_answered++;
		pthread_cond_broadcast(&changed);
		pthread_mutex_unlock(&lock);
	}
}

static void enqueue(const char *text)
{
	pthread_mutex_lock(&lock);
	while (n_read - n_taken == QUEUE)
		pthread_cond_wait(&changed, &lock);
	queue[n_read % QUEUE].id = n_read + 1;
	snprintf(queue[n_read % QUEUE].text, TEXT, "%.*s", TEXT - 1, text);
	n_read++;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void wait_answered(void)
{
	pthread_mutex_lock(&lock);
	while (n_answered != n_read)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
}

static unsigned long answered(void)
{
	pthread_mutex_lock(&lock);
	unsigned long n = n_answered;
	pthread_mutex_unlock(&lock);
	return n;
}

/* The workers inside the handler now. */
static int calls_in_progress(void)
{
	int n = 0;

	for (int i = 0; i < WORKERS; i++)
		n += calls[i] & 1;
	return n;
}

/* Waits until every call in progress now has returned.  After a redirect,
 * new calls go to the new code; the calls counted here may still be in
 * the old. */
static void wait_for_calls(void)
{
	unsigned long seen[WORKERS];

	for (int i = 0; i < WORKERS; i++)
		seen[i] = calls[i];
	for (int i = 0; i < WORKERS; i++)
		while ((seen[i] & 1) && calls[i] == seen[i])
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
}

/* Redirects handle_request's calls to fn (NULL: back to version 1) and
 * says what the workers did meanwhile: they do not stop for it. */
static int redirect(void *fn, const char *what)
{
	unsigned long before = answered();
	int busy = calls_in_progress();
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = multiverse_redirect((void *)handle_request, fn);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r) {
		fprintf(stderr, "server: %s: %s\n", what, multiverse_last_error());
		return r;
	}
	fprintf(stderr, "server:   took %.1f ms; requests answered meanwhile: %lu; calls in "
		"progress, which finish in the old code: %d\n",
		(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
		answered() - before, busy);
	return 0;
}

static void *module;         /* the loaded version, or NULL for version 1 */
static char module_name[256];

/* Loads a new version and unloads the one it replaces, unless that is
 * version 1, once no call is left in it. */
static void update(const char *file)
{
	void *m = dlopen(file, RTLD_NOW | RTLD_LOCAL), *fn;

	if (!m) {
		fprintf(stderr, "server: update: %s\n", dlerror());
		return;
	}
	if (m == module) {
		fprintf(stderr, "server: update: %s runs already\n", file);
		dlclose(m);
		return;
	}
	fn = dlsym(m, "handle_request");
	if (!fn) {
		fprintf(stderr, "server: update: %s defines no handle_request\n", file);
		dlclose(m);
		return;
	}
	fprintf(stderr, "server: update %s: handle_request's call sites (%u) and entry go "
		"to its handle_request\n", file,
		multiverse_info_fn((void *)handle_request)->n_sites);
	if (redirect(fn, "update")) {
		dlclose(m);
		return;
	}
	if (module) {
		wait_for_calls();
		dlclose(module);
	}
	module = m;
	snprintf(module_name, sizeof module_name, "%s", file);
}

static void rollback(void)
{
	fprintf(stderr, "server: rollback: handle_request's calls go to version 1 again\n");
	if (redirect(NULL, "rollback") || !module)
		return;
	wait_for_calls();
	dlclose(module);
	module = NULL;
	fprintf(stderr, "server:   %s unloaded once those calls had returned\n", module_name);
}

int main(void)
{
	pthread_t threads[WORKERS];
	char line[256];

	for (int i = 0; i < WORKERS; i++)
		pthread_create(&threads[i], NULL, worker, &calls[i]);
	fprintf(stderr, "server: %d workers, answering with handle_request version 1\n", WORKERS);

	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "update ", 7))
			update(line + 7);
		else if (!strcmp(line, "rollback"))
			rollback();
		else if (!strcmp(line, "wait"))
			wait_answered();
		else if (!strcmp(line, "quit"))
			break;
		else if (*line)
			enqueue(line);
	}

	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(threads[i], NULL);
	fflush(stdout);
	fprintf(stderr, "server: quit: requests read: %lu, answered: %lu; served, says the "
		"state: %lu\n", n_read, n_answered, (unsigned long)state.served);
	return n_answered != n_read || state.served != n_answered;
}
