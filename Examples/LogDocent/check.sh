#!/usr/bin/env bash
# Builds LogDocent (the DocentApp example) and checks that its binary is a complete docent
# with the app's document type in front of the built-in ones. Run by .ci/run.
source "$(dirname "$0")/../check-common.sh"
export DOCENT_CONFIG_DIR=$PWD XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache  # the type is declared in ./content-types.yaml
mkdir -p "$work/logs"
printf 'INFO start\nERROR disk quokkafull\nINFO done\n' > "$work/logs/server.applog"
printf 'one\ntwo\n' > "$work/logs/client.applog"
printf 'plain words\n' > "$work/logs/notes.txt"
pdf=/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf  # a PDF: the app's own helper reads it
[ -f "$pdf" ] && cp "$pdf" "$work/logs/"

"$app" index "$work/logs" | grep -q '0 with errors' || fail "index reported errors"
[ "$("$app" search quokkafull --files)" = "$work/logs/server.applog" ] || fail "search did not find the log's word"
"$app" search quokkafull --json | grep -q '"contentType":"com.example.app-log"' || fail "the log was not typed com.example.app-log"
preview=$("$app" preview "$work/logs/server.applog")
grep -q 'Application log' <<<"$preview" && grep -q '3 lines' <<<"$preview" || fail "preview: $preview"
"$app" info "$work/logs/server.applog" | grep -q 'LogDocument reads com.example.app-log' || fail "info does not name LogDocument"
if [ -f "$pdf" ]; then
  [ "$("$app" search '"shared mime"' --files)" = "$work/logs/shared-mime-info-spec.pdf" ] || fail "the PDF was not read through the app's helper"
fi
"$app" status >/dev/null || fail "status failed"
echo "LogDocent: index, search, preview, info and status work, with the app's type first"
