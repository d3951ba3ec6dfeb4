/* atomic_file.h - writing a file so that whoever reads it sees the old content or the new, never
 * a part: a temporary file created next to it (O_EXCL, so never through a symlink or over
 * another file), given mode 0666 minus the umask like any new file, written, fsynced, then
 * renamed over the path (which replaces a symlink there, not its target).
 *
 *   atomic_file af;
 *   if (!atomic_file_open(&af, "out.png", why, sizeof why)) ...
 *   fwrite(..., af.fp);
 *   if (!atomic_file_commit(&af, why, sizeof why)) ...      // or atomic_file_abort(&af)
 *
 * Temporary files still open are removed when the process gets SIGINT, SIGTERM or SIGHUP once
 * atomic_file_remove_on_signals() has been called (the signal then does what it did before).
 */
#ifndef PMF_ATOMIC_FILE_H
#define PMF_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct atomic_file {
    FILE *fp;                        /* write here */
    char *path, *tmp;
    int slot;                        /* in the signal-time removal list, -1 = none */
    bool unsynced;                   /* set after open: committed without fsync (a cache, whose own
                                      * checksum tells a file a crash cut short) */
} atomic_file;

/* Creates "DIR/.NAME.XXXXXX" next to path. False with the reason in why ("cannot ...: errno
 * text", without the path). */
bool atomic_file_open(atomic_file *af, const char *path, char *why, size_t why_size);
/* Flushes, fsyncs and renames over the path; on failure removes the temporary file. */
bool atomic_file_commit(atomic_file *af, char *why, size_t why_size);
/* Closes and removes the temporary file. */
void atomic_file_abort(atomic_file *af);

/* An unnamed scratch file (O_TMPFILE, else created and unlinked at once) in path's directory,
 * open for reading and writing: it has no name to remove, so no error, signal or kill leaves it
 * behind. Its fd, or -1 with the reason in why. */
int atomic_file_scratch(const char *path, char *why, size_t why_size);

/* Installs the SIGINT/SIGTERM/SIGHUP handler that removes open temporary files. */
void atomic_file_remove_on_signals(void);

#endif
