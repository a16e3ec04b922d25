# idgen layer: UUIDv7 and Id64 generators (no other ordo layer involved).
ordo_test(idgen_test
  SOURCES idgen_uuid_test.cc idgen_id64_test.cc
  LIBS ordo_idgen
  LABELS idgen
  CONCURRENCY
    IdgenId64.MonotonicAcrossFourThreads
    IdgenUuidV7.MonotonicAcrossFourThreads
    IdgenUuidV7.NoDuplicatesAcrossEightThreads)
