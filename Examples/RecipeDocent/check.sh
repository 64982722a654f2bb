#!/usr/bin/env bash
# Builds RecipeDocent and checks a persistent-store document end to end: the store's records
# searchable and previewed through its own binary (and its own helper process), the store
# left byte for byte as it was, nothing made beside it. Run by .ci/run.
source "$(dirname "$0")/../check-common.sh"
export DOCENT_CONFIG_DIR=$PWD XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
mkdir -p "$work/box"
store=$work/box/kitchen.recipebox
python3 - "$store" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('PRAGMA journal_mode=WAL')
c.execute('CREATE TABLE recipe (id INTEGER PRIMARY KEY, name TEXT, steps TEXT, minutes INTEGER)')
c.executemany('INSERT INTO recipe (name, steps, minutes) VALUES (?, ?, ?)', [
    ('Tarte tatin', 'caramelise the apples, lay the pastry on top, bake, turn out', 60),
    ('Shakshuka', 'simmer peppers and tomatoes, poach the eggs in the sauce', 25),
])
c.commit(); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()
PY
before=$(sha256sum "$store"); listed=$(ls -a "$work/box")

"$app" index "$work/box" | grep -q '0 with errors' || fail "index reported errors"
[ "$("$app" search caramelise --files)" = "$store" ] || fail "a record's text was not searchable"
[ "$("$app" search 'poach eggs' --files)" = "$store" ] || fail "the second record's text was not searchable"
"$app" info "$store" | grep -q 'Recipe reads com.example.recipe-box' || fail "info does not name the Recipe store group"
preview=$("$app" preview "$store")
for expected in 'Recipe box' 'Tarte tatin' 'Shakshuka' '25'; do
  grep -qF "$expected" <<<"$preview" || fail "preview lacks '$expected': $preview"
done
[ "$(sha256sum "$store")" = "$before" ] || fail "the store changed"
[ "$(ls -a "$work/box")" = "$listed" ] || fail "a file appeared beside the store: $(ls -a "$work/box")"
echo "RecipeDocent: a store's records searchable and previewed; the store untouched"
