// LeaderContact (replica/src/leader_contact.h): when a follower grants a vote
// although it knows a leader, and when it campaigns before its timer.
#include "leader_contact.h"

#include <gtest/gtest.h>

namespace ordo::replica {
namespace {

constexpr uint64_t kElectionMs = 1000;

TEST(LeaderContact, AVoteWaitsTheMinimumElectionTimeoutAfterTheLeadersLastMessage) {
  LeaderContact c;
  EXPECT_FALSE(c.leader_gone(1, 5000, kElectionMs)) << "never heard from: libraft decides";
  c.message_from(1, 5000);
  EXPECT_FALSE(c.leader_gone(1, 5000, kElectionMs));
  EXPECT_FALSE(c.leader_gone(1, 5999, kElectionMs));
  EXPECT_TRUE(c.leader_gone(1, 6000, kElectionMs));
  c.message_from(1, 4900);  // an older time never moves the last contact back
  EXPECT_TRUE(c.leader_gone(1, 6000, kElectionMs));
  c.message_from(1, 6100);
  EXPECT_FALSE(c.leader_gone(1, 6200, kElectionMs));
  EXPECT_FALSE(c.leader_gone(2, 9000, kElectionMs)) << "another peer's silence says nothing";
}

TEST(LeaderContact, AClosedConnectionMeansGoneUntilTheLeaderSpeaksAgain) {
  LeaderContact c;
  c.message_from(1, 5000);
  c.closed_by(1, 5010);
  EXPECT_TRUE(c.leader_gone(1, 5010, kElectionMs));
  c.message_from(1, 5010);  // read in the same millisecond: sent before the close
  EXPECT_TRUE(c.leader_gone(1, 5011, kElectionMs));
  c.message_from(1, 5200);  // over a new connection
  EXPECT_FALSE(c.leader_gone(1, 5201, kElectionMs));
  c.closed_by(2, 5300);  // a close by a peer this replica never heard from
  EXPECT_FALSE(c.leader_gone(2, 5300, kElectionMs));
}

TEST(LeaderContact, FollowersCampaignInIdOrderOneStepApart) {
  const std::vector<uint64_t> voters = {3, 1, 2};  // unsorted on purpose
  constexpr uint64_t kStepMs = 200;
  LeaderContact c;
  c.message_from(1, 5000);
  EXPECT_FALSE(c.campaign_due(1, 2, voters, 5000, kStepMs)) << "no close yet";
  c.closed_by(1, 5050);
  // Voters but the leader, in id order: 2 then 3.
  EXPECT_TRUE(c.campaign_due(1, 2, voters, 5050, kStepMs));
  EXPECT_FALSE(c.campaign_due(1, 3, voters, 5050, kStepMs));
  EXPECT_FALSE(c.campaign_due(1, 3, voters, 5249, kStepMs));
  EXPECT_TRUE(c.campaign_due(1, 3, voters, 5250, kStepMs));
  // A replica that is no voter never campaigns.
  EXPECT_FALSE(c.campaign_due(1, 4, voters, 9000, kStepMs));
  // Once the leader speaks again, nobody campaigns.
  c.message_from(1, 5300);
  EXPECT_FALSE(c.campaign_due(1, 2, voters, 5300, kStepMs));
}

TEST(LeaderContact, WithTheLowestIdLeaderTheNextVoterGoesFirst) {
  LeaderContact c;
  c.message_from(2, 100);
  c.closed_by(2, 150);
  const std::vector<uint64_t> voters = {1, 2, 3, 4, 5};
  EXPECT_TRUE(c.campaign_due(2, 1, voters, 150, 200));
  EXPECT_FALSE(c.campaign_due(2, 3, voters, 349, 200));
  EXPECT_TRUE(c.campaign_due(2, 3, voters, 350, 200));
  EXPECT_FALSE(c.campaign_due(2, 5, voters, 749, 200));
  EXPECT_TRUE(c.campaign_due(2, 5, voters, 750, 200));
}

}  // namespace
}  // namespace ordo::replica
