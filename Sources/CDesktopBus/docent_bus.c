// The desktop search service: GNOME Shell's org.gnome.Shell.SearchProvider2 and KDE's
// org.kde.krunner1 over GDBus, each call handed to Docent's handlers (see docent_bus.h).
// GLib's include paths come from poppler-glib's pkg-config entry (the CPoppler dependency).
#include "docent_bus.h"
#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>

typedef struct {
    char *id, *name, *description, *mime_type;
    double relevance;
} docent_result;

struct docent_results {
    GPtrArray *items;
};

static void result_free(gpointer pointer) {
    docent_result *result = pointer;
    g_free(result->id);
    g_free(result->name);
    g_free(result->description);
    g_free(result->mime_type);
    g_free(result);
}

void docent_results_add(docent_results *results, const char *id, const char *name, const char *description,
                        const char *mime_type, double relevance) {
    docent_result *result = g_new0(docent_result, 1);
    // D-Bus strings must be UTF-8: anything else is replaced, never sent as is.
    result->id = g_utf8_make_valid(id ? id : "", -1);
    result->name = g_utf8_make_valid(name ? name : "", -1);
    result->description = g_utf8_make_valid(description ? description : "", -1);
    result->mime_type = mime_type ? g_strdup(mime_type) : NULL;
    result->relevance = relevance;
    g_ptr_array_add(results->items, result);
}

static const char introspection_xml[] =
    "<node>"
    " <interface name='org.gnome.Shell.SearchProvider2'>"
    "  <method name='GetInitialResultSet'><arg type='as' name='terms' direction='in'/><arg type='as' name='results' direction='out'/></method>"
    "  <method name='GetSubsearchResultSet'><arg type='as' name='previous_results' direction='in'/><arg type='as' name='terms' direction='in'/>"
    "   <arg type='as' name='results' direction='out'/></method>"
    "  <method name='GetResultMetas'><arg type='as' name='identifiers' direction='in'/><arg type='aa{sv}' name='metas' direction='out'/></method>"
    "  <method name='ActivateResult'><arg type='s' name='identifier' direction='in'/><arg type='as' name='terms' direction='in'/>"
    "   <arg type='u' name='timestamp' direction='in'/></method>"
    "  <method name='LaunchSearch'><arg type='as' name='terms' direction='in'/><arg type='u' name='timestamp' direction='in'/></method>"
    " </interface>"
    " <interface name='org.kde.krunner1'>"
    "  <method name='Actions'><arg type='a(sss)' name='matches' direction='out'/></method>"
    "  <method name='Match'><arg type='s' name='query' direction='in'/><arg type='a(sssida{sv})' name='matches' direction='out'/></method>"
    "  <method name='Run'><arg type='s' name='matchId' direction='in'/><arg type='s' name='actionId' direction='in'/></method>"
    "  <method name='Config'><arg type='a{sv}' name='config' direction='out'/></method>"
    "  <method name='Teardown'/>"
    " </interface>"
    "</node>";

typedef struct {
    const docent_bus_handlers *handlers;
    GMainLoop *loop;
    unsigned idle_seconds;
    guint idle_source;
    gboolean owned;
    char *error;
    size_t error_size;
    const char *name;
} service;

static gboolean on_idle(gpointer data) {
    service *s = data;
    s->idle_source = 0;
    g_main_loop_quit(s->loop);
    return G_SOURCE_REMOVE;
}

/// Every call puts the idle exit off again.
static void rearm_idle(service *s) {
    if (s->idle_seconds == 0) return;
    if (s->idle_source) g_source_remove(s->idle_source);
    s->idle_source = g_timeout_add_seconds(s->idle_seconds, on_idle, s);
}

static docent_results *results_new(void) {
    docent_results *results = g_new0(docent_results, 1);
    results->items = g_ptr_array_new_with_free_func(result_free);
    return results;
}

static void results_free(docent_results *results) {
    g_ptr_array_unref(results->items);
    g_free(results);
}

/// The icon GNOME Shell shows for a MIME type, serialized (g_icon_to_string), or NULL.
static char *gicon_string(const char *mime_type) {
    if (!mime_type) return g_strdup("text-x-generic");
    GIcon *icon = g_content_type_get_icon(mime_type);
    char *text = icon ? g_icon_to_string(icon) : NULL;
    if (icon) g_object_unref(icon);
    return text ? text : g_strdup("text-x-generic");
}

/// A themed icon name for KRunner (the most specific the MIME type has).
static char *icon_name(const char *mime_type) {
    if (!mime_type) return g_strdup("text-x-generic");
    GIcon *icon = g_content_type_get_icon(mime_type);
    char *name = NULL;
    if (icon && G_IS_THEMED_ICON(icon)) {
        const char *const *names = g_themed_icon_get_names(G_THEMED_ICON(icon));
        if (names && names[0]) name = g_strdup(names[0]);
    }
    if (icon) g_object_unref(icon);
    return name ? name : g_strdup("text-x-generic");
}

static GVariant *ids_of(docent_results *results) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("as"));
    for (guint i = 0; i < results->items->len; i++) {
        docent_result *r = g_ptr_array_index(results->items, i);
        g_variant_builder_add(&builder, "s", r->id);
    }
    return g_variant_builder_end(&builder);
}

static void search(service *s, const char *const *terms, docent_results *out) {
    if (s->handlers->search) s->handlers->search(s->handlers->context, terms, out);
}

static void method_call(GDBusConnection *connection, const char *sender, const char *path, const char *interface,
                        const char *method, GVariant *parameters, GDBusMethodInvocation *invocation, gpointer data) {
    (void)connection; (void)sender; (void)path;
    service *s = data;
    const docent_bus_handlers *h = s->handlers;
    rearm_idle(s);
    if (strcmp(interface, "org.gnome.Shell.SearchProvider2") == 0) {
        if (strcmp(method, "GetInitialResultSet") == 0 || strcmp(method, "GetSubsearchResultSet") == 0) {
            g_autofree const char **terms = NULL;
            if (strcmp(method, "GetInitialResultSet") == 0) {
                g_variant_get(parameters, "(^a&s)", &terms);
            } else {
                g_autofree const char **previous = NULL;
                g_variant_get(parameters, "(^a&s^a&s)", &previous, &terms);
            }
            docent_results *results = results_new();
            search(s, terms, results);
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple((GVariant *[]){ids_of(results)}, 1));
            results_free(results);
        } else if (strcmp(method, "GetResultMetas") == 0) {
            g_autofree const char **ids = NULL;
            g_variant_get(parameters, "(^a&s)", &ids);
            docent_results *results = results_new();
            if (h->metas) h->metas(h->context, ids, results);
            GVariantBuilder metas;
            g_variant_builder_init(&metas, G_VARIANT_TYPE("aa{sv}"));
            for (guint i = 0; i < results->items->len; i++) {
                docent_result *r = g_ptr_array_index(results->items, i);
                g_autofree char *gicon = gicon_string(r->mime_type);
                g_variant_builder_open(&metas, G_VARIANT_TYPE("a{sv}"));
                g_variant_builder_add(&metas, "{sv}", "id", g_variant_new_string(r->id));
                g_variant_builder_add(&metas, "{sv}", "name", g_variant_new_string(r->name));
                g_variant_builder_add(&metas, "{sv}", "description", g_variant_new_string(r->description));
                g_variant_builder_add(&metas, "{sv}", "gicon", g_variant_new_string(gicon));
                g_variant_builder_close(&metas);
            }
            g_dbus_method_invocation_return_value(invocation, g_variant_new("(aa{sv})", &metas));
            results_free(results);
        } else if (strcmp(method, "ActivateResult") == 0) {
            const char *id = NULL;
            g_autofree const char **terms = NULL;
            guint32 timestamp = 0;
            g_variant_get(parameters, "(&s^a&su)", &id, &terms, &timestamp);
            if (h->activate) h->activate(h->context, id, "");
            g_dbus_method_invocation_return_value(invocation, NULL);
        } else if (strcmp(method, "LaunchSearch") == 0) {
            g_autofree const char **terms = NULL;
            guint32 timestamp = 0;
            g_variant_get(parameters, "(^a&su)", &terms, &timestamp);
            if (h->launch) h->launch(h->context, terms);
            g_dbus_method_invocation_return_value(invocation, NULL);
        } else {
            g_dbus_method_invocation_return_error(invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD, "no method %s", method);
        }
        return;
    }
    // org.kde.krunner1
    if (strcmp(method, "Actions") == 0) {
        g_dbus_method_invocation_return_value(invocation,
            g_variant_new_parsed("([('open-folder', 'Open the containing folder', 'document-open-folder')],)"));
    } else if (strcmp(method, "Match") == 0) {
        const char *query = NULL;
        g_variant_get(parameters, "(&s)", &query);
        const char *terms[] = {query, NULL};
        docent_results *results = results_new();
        search(s, terms, results);
        GVariantBuilder matches;
        g_variant_builder_init(&matches, G_VARIANT_TYPE("a(sssida{sv})"));
        for (guint i = 0; i < results->items->len; i++) {
            docent_result *r = g_ptr_array_index(results->items, i);
            g_autofree char *icon = icon_name(r->mime_type);
            GVariantBuilder properties;
            g_variant_builder_init(&properties, G_VARIANT_TYPE("a{sv}"));
            g_variant_builder_add(&properties, "{sv}", "subtext", g_variant_new_string(r->description));
            g_variant_builder_add(&properties, "{sv}", "category", g_variant_new_string("Docent"));
            // 30: a possible match (KRunner's QueryMatch categories run 0 … 100).
            g_variant_builder_add(&matches, "(sssida{sv})", r->id, r->name, icon, 30, r->relevance, &properties);
        }
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(a(sssida{sv}))", &matches));
        results_free(results);
    } else if (strcmp(method, "Run") == 0) {
        const char *id = NULL, *action = NULL;
        g_variant_get(parameters, "(&s&s)", &id, &action);
        if (h->activate) h->activate(h->context, id, action);
        g_dbus_method_invocation_return_value(invocation, NULL);
    } else if (strcmp(method, "Config") == 0) {
        g_dbus_method_invocation_return_value(invocation, g_variant_new_parsed("({'MinLetterCount': <3>},)"));
    } else if (strcmp(method, "Teardown") == 0) {
        g_dbus_method_invocation_return_value(invocation, NULL);
    } else {
        g_dbus_method_invocation_return_error(invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD, "no method %s", method);
    }
}

static const GDBusInterfaceVTable vtable = {method_call, NULL, NULL, {0}};

typedef struct {
    service *s;
    GDBusNodeInfo *node;
    const char *gnome_path, *krunner_path;
} registration;

static void on_bus_acquired(GDBusConnection *connection, const char *name, gpointer data) {
    (void)name;
    registration *r = data;
    GError *error = NULL;
    if (!g_dbus_connection_register_object(connection, r->gnome_path, r->node->interfaces[0], &vtable, r->s, NULL, &error)
        || !g_dbus_connection_register_object(connection, r->krunner_path, r->node->interfaces[1], &vtable, r->s, NULL, &error)) {
        g_snprintf(r->s->error, r->s->error_size, "cannot export the search objects: %s", error ? error->message : "?");
        g_clear_error(&error);
        g_main_loop_quit(r->s->loop);
    }
}

static void on_name_acquired(GDBusConnection *connection, const char *name, gpointer data) {
    (void)connection; (void)name;
    registration *r = data;
    r->s->owned = TRUE;
    rearm_idle(r->s);
}

static void on_name_lost(GDBusConnection *connection, const char *name, gpointer data) {
    registration *r = data;
    if (!r->s->error[0]) {
        if (!connection)
            g_snprintf(r->s->error, r->s->error_size, "cannot connect to the session bus (is DBUS_SESSION_BUS_ADDRESS set?)");
        else if (!r->s->owned)
            g_snprintf(r->s->error, r->s->error_size, "%s is owned by another process already", name);
    }
    g_main_loop_quit(r->s->loop);
}

static gboolean on_signal(gpointer data) {
    g_main_loop_quit(((service *)data)->loop);
    return G_SOURCE_CONTINUE;
}

int docent_bus_run(const char *name, const char *gnome_path, const char *krunner_path, const docent_bus_handlers *handlers,
                   unsigned idle_seconds, char *error, size_t error_size) {
    if (error_size) error[0] = 0;
    // GLib's default main context: this process runs no other GLib loop.
    service s = {handlers, g_main_loop_new(NULL, FALSE), idle_seconds, 0, FALSE, error, error_size, name};
    GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(introspection_xml, NULL);
    registration r = {&s, node, gnome_path, krunner_path};
    guint term = g_unix_signal_add(SIGTERM, on_signal, &s), interrupt = g_unix_signal_add(SIGINT, on_signal, &s);
    // Activated by D-Bus: the bus that started it; otherwise the session bus.
    GBusType type = g_getenv("DBUS_STARTER_ADDRESS") ? G_BUS_TYPE_STARTER : G_BUS_TYPE_SESSION;
    guint owner = g_bus_own_name(type, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, on_bus_acquired, on_name_acquired, on_name_lost, &r, NULL);
    g_main_loop_run(s.loop);
    g_bus_unown_name(owner);
    if (s.idle_source) g_source_remove(s.idle_source);
    g_source_remove(term);
    g_source_remove(interrupt);
    // Let the release of the name reach the bus before returning.
    while (g_main_context_iteration(NULL, FALSE)) {}
    g_dbus_node_info_unref(node);
    g_main_loop_unref(s.loop);
    return error_size && error[0] ? 1 : 0;
}
