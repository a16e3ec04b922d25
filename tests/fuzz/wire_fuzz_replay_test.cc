// Replays the wire fuzzers' committed corpora (tests/fuzz/corpus-protocol,
// corpus-snapshot) and the inputs a fuzzer run found to crash
// (regressions-protocol, regressions-snapshot) through the fuzzed parsers,
// then a short seeded mutation run of each, in every build.
#include <gtest/gtest.h>

#include <string>

#include "corpus_replay.h"
#include "wire_fuzz_body.h"

namespace {

// Byte 0 of an input picks the parser: the mutations keep it.
void replay(const std::string& name, const ordo::fuzz::Parser& parse, size_t min_corpus) {
  const std::string root = ORDO_FUZZ_DIR;
  ordo::fuzz::replay_corpus(root + "/corpus-" + name, root + "/regressions-" + name, parse,
                            min_corpus, 500, 1, 13);
}

TEST(WireFuzzReplayTest, ClientProtocolCorpusAndMutations) {
  replay("protocol", &ordo::fuzz::decode_client_protocol, 10);
}

TEST(WireFuzzReplayTest, SnapshotChannelCorpusAndMutations) {
  replay("snapshot", &ordo::fuzz::decode_snapshot_channel, 4);
}

}  // namespace
