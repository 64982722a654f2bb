#ifndef DOCENT_BUS_H
#define DOCENT_BUS_H
#include <stddef.h>

/// Results a handler hands back: a list the C side owns, filled with docent_results_add.
typedef struct docent_results docent_results;

/// Adds one result: `id` (the index's row id, as text), `name` and `description` (UTF-8),
/// `mime_type` (for the icon; NULL: a generic document icon), `relevance` (0…1, KRunner's).
void docent_results_add(docent_results *results, const char *id, const char *name, const char *description,
                        const char *mime_type, double relevance);

/// What the service asks of its owner (called on the thread that runs docent_bus_run).
typedef struct {
    void *context;
    /// The hits for the search words `terms` (NULL-terminated), best first, with their metas.
    void (*search)(void *context, const char *const *terms, docent_results *out);
    /// The metas of the results `ids` (NULL-terminated), in that order; unknown ones left out.
    void (*metas)(void *context, const char *const *ids, docent_results *out);
    /// Opens the result `id`; `action` is "" (the file) or "open-folder" (its directory).
    void (*activate)(void *context, const char *id, const char *action);
    /// Shows all results for `terms` (GNOME Shell's "more results").
    void (*launch)(void *context, const char *const *terms);
} docent_bus_handlers;

/// Owns `name` on the session bus (the bus that started it, when D-Bus activated it) and
/// serves org.gnome.Shell.SearchProvider2 at `gnome_path` and org.kde.krunner1 at
/// `krunner_path` until `idle_seconds` pass without a call (0: never), the bus goes away,
/// the name is lost, or SIGTERM/SIGINT. Returns 0, or 1 with a message in `error`.
int docent_bus_run(const char *name, const char *gnome_path, const char *krunner_path, const docent_bus_handlers *handlers,
                   unsigned idle_seconds, char *error, size_t error_size);
#endif
