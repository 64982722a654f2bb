#!/usr/bin/env bash
# Builds CalendarDocent and checks that its binary reads iCalendar files as calendars:
# their entries searchable and previewed as a table. Run by .ci/run.
source "$(dirname "$0")/../check-common.sh"
export DOCENT_CONFIG_DIR=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
mkdir -p "$work/cal"
# RFC 5545: CRLF lines, a long line folded (CRLF and one space, which unfolding removes: the
# continuation keeps its own leading space), escaped commas.
printf '%s\r\n' 'BEGIN:VCALENDAR' 'VERSION:2.0' 'PRODID:-//Docent//check//EN' 'X-WR-CALNAME:Team' \
  'BEGIN:VEVENT' 'UID:1@example.com' 'DTSTAMP:20261101T120000Z' 'DTSTART:20261201T090000Z' 'DTEND:20261201T170000Z' \
  'SUMMARY:Offsite planning' 'LOCATION:Harbour room\, level 3' 'DESCRIPTION:Bring the quarterly numbers and the' \
  '  pangolin report' 'END:VEVENT' \
  'BEGIN:VTODO' 'UID:2@example.com' 'DTSTAMP:20261101T120000Z' 'DUE:20261205' 'SUMMARY:Book the ferry' 'END:VTODO' \
  'END:VCALENDAR' > "$work/cal/team.ics"

"$app" index "$work/cal" | grep -q '0 with errors' || fail "index reported errors"
[ "$("$app" search pangolin --files)" = "$work/cal/team.ics" ] || fail "a folded description's word was not found"
"$app" info "$work/cal/team.ics" | grep -q 'CalendarDocument reads com.apple.ical.ics' || fail "info does not name CalendarDocument"
preview=$("$app" preview "$work/cal/team.ics")
for expected in 'Team' 'Offsite planning' '2026-12-01 09:00 UTC' 'Harbour room, level 3' 'Todo' 'Book the ferry' '2026-12-05'; do
  grep -qF "$expected" <<<"$preview" || fail "preview lacks '$expected': $preview"
done
echo "CalendarDocent: iCalendar entries searchable and previewed"
