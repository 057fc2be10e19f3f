// GainBlend (gain_blend.hpp) alone: a request blended in with a raised cosine over the
// ramp, a new request mid-blend starting from the gains in force, a zero ramp at once.
#include <gtest/gtest.h>

#include <vector>

#include "robodyn_controllers/gain_blend.hpp"

using robodyn_controllers::GainBlend;

TEST(GainBlend, a_request_is_blended_in_over_the_ramp_with_a_raised_cosine)
{
  GainBlend blend;
  blend.configure(2);
  std::vector<double> kp{100.0, 100.0}, kd{10.0, 10.0};
  EXPECT_FALSE(blend.step(0.0, kp.data(), kd.data(), 1.0));  // nothing requested
  blend.request({400.0, 200.0}, {20.0, 10.0});
  EXPECT_TRUE(blend.step(5.0, kp.data(), kd.data(), 1.0));  // starts at now: w = 0
  EXPECT_DOUBLE_EQ(kp[0], 100.0);
  EXPECT_TRUE(blend.step(5.5, kp.data(), kd.data(), 1.0));  // half way: w = 1/2
  EXPECT_DOUBLE_EQ(kp[0], 250.0);
  EXPECT_DOUBLE_EQ(kp[1], 150.0);
  EXPECT_DOUBLE_EQ(kd[0], 15.0);
  EXPECT_TRUE(blend.step(5.25, kp.data(), kd.data(), 1.0));  // w = (1 - cos(pi/4)) / 2
  EXPECT_NEAR(kp[0], 100.0 + 300.0 * (0.5 - 0.5 * 0.70710678118654752), 1e-12);
  EXPECT_TRUE(blend.blending());
  EXPECT_TRUE(blend.step(6.0, kp.data(), kd.data(), 1.0));
  EXPECT_DOUBLE_EQ(kp[0], 400.0);
  EXPECT_FALSE(blend.blending());
  EXPECT_FALSE(blend.step(7.0, kp.data(), kd.data(), 1.0));
}

TEST(GainBlend, a_request_mid_blend_starts_from_the_gains_in_force)
{
  GainBlend blend;
  blend.configure(1);
  std::vector<double> kp{0.0}, kd{0.0};
  blend.request({100.0}, {0.0});
  blend.step(0.0, kp.data(), kd.data(), 2.0);
  blend.step(1.0, kp.data(), kd.data(), 2.0);  // 50
  blend.request({0.0}, {0.0});
  blend.step(1.0, kp.data(), kd.data(), 2.0);  // the new blend starts at 50
  EXPECT_DOUBLE_EQ(kp[0], 50.0);
  blend.step(3.0, kp.data(), kd.data(), 2.0);
  EXPECT_DOUBLE_EQ(kp[0], 0.0);
}

TEST(GainBlend, a_zero_ramp_sets_the_gains_at_the_next_step_and_a_wrong_size_is_dropped)
{
  GainBlend blend;
  blend.configure(2);
  std::vector<double> kp{1.0, 1.0}, kd{1.0, 1.0};
  blend.request({3.0}, {3.0});  // not 2 values: never applied
  EXPECT_FALSE(blend.step(0.0, kp.data(), kd.data(), 0.0));
  EXPECT_DOUBLE_EQ(kp[0], 1.0);
  blend.request({3.0, 4.0}, {5.0, 6.0});
  EXPECT_TRUE(blend.step(0.0, kp.data(), kd.data(), 0.0));
  EXPECT_DOUBLE_EQ(kp[1], 4.0);
  EXPECT_DOUBLE_EQ(kd[1], 6.0);
  EXPECT_FALSE(blend.blending());
}
