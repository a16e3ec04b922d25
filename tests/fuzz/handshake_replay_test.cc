// Replays the committed seeds of ordo-fuzz-handshake (tests/fuzz/handshake_corpus)
// and every input a fuzzer run found to crash (handshake_regressions), and
// runs a short seeded mutation of the seeds, in every build.
#include <gtest/gtest.h>

#include "corpus_replay.h"
#include "handshake_fuzz_body.h"

namespace {

TEST(HandshakeFuzzReplayTest, SeedsFoundCrashesAndMutationsParseWithoutCrashing) {
  ordo::fuzz::replay_corpus(ORDO_FUZZ_DIR "/handshake_corpus",
                            ORDO_FUZZ_DIR "/handshake_regressions",
                            &ordo::fuzz::parse_raft_handshake, 4, 2000, 0, 17);
}

}  // namespace
