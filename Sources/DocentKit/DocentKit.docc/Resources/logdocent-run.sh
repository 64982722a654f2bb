$ swift build
$ export DOCENT_CONFIG_DIR=$PWD
$ .build/debug/LogDocent index ~/logs
3 files: 3 indexed, 0 unchanged, 0 moved, 0 removed, 0 with errors, in 0.01 s
$ .build/debug/LogDocent search quokkafull --files
/home/me/logs/server.applog
$ .build/debug/LogDocent preview ~/logs/server.applog
Application log
3 lines
