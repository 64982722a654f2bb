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
# The documents written as Apple's documentation writes them (AppleStyleDocuments.swift,
# which imports only DocentKit, UniformTypeIdentifiers and Synchronization).
printf 'buy gannetmilk\n' > "$work/logs/shopping.memo"
printf 'dear diary, a pelicanday\n' > "$work/logs/today.journal"
printf 'BLOB\0\1\2' > "$work/logs/raw.blob"
"$app" index "$work/logs" | grep -q '0 with errors' || fail "index reported errors on the Apple-style documents"
"$app" search gannetmilk --json | grep -q '"contentType":"com.example.memo"' || fail "the memo was not found as com.example.memo"
"$app" preview "$work/logs/shopping.memo" | grep -q 'buy gannetmilk' || fail "the memo's viewer"
"$app" preview "$work/logs/today.journal" | grep -q 'pelicanday' || fail "the journal's viewer"
[ "$("$app" export "$work/logs/today.journal" --as journal)" = "DEAR DIARY, A PELICANDAY" ] \
    || fail "the journal's export through snapshot(contentType:) and fileWrapper(snapshot:configuration:)"
"$app" preview "$work/logs/raw.blob" | grep -q '7 bytes' || fail "the Mutex-backed document's viewer"
cmp -s <("$app" export "$work/logs/raw.blob" --as blob) "$work/logs/raw.blob" || fail "the Mutex-backed document's export"
"$app" status >/dev/null || fail "status failed"
echo "LogDocent: index, search, preview, info and status work, with the app's type first"
