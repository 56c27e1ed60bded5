// The system SQLite library (Debian's libsqlite3-dev).
#ifndef PAYPULSE_CSQLITE_SHIM_H
#define PAYPULSE_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type paypulse_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic, which Swift cannot call. Keeps the WAL when the last
// connection closes instead of checkpointing it into the database file (two fsyncs) and
// deleting it, which a new WAL (two more fsyncs) then replaces at the next process start.
static inline int paypulse_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
