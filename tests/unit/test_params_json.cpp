// The `params` column read back one way everywhere: util::params_from_json and canonical_params
// (replay, simulate) and run::genome_from_params (checkpoints), which must agree with what
// core::search_space::to_json writes, whatever spelling a number has in family.toml.
#include <gtest/gtest.h>

#include "core/search_space.hpp"
#include "run/checkpoint.hpp"
#include "util/params_json.hpp"

using galapagos::util::canonical_params;
using galapagos::util::canonical_value;
using galapagos::util::params_from_json;

TEST(ParamsJson, NumbersHaveOneSpellingTextIsKept) {
  EXPECT_EQ(canonical_value("4"), "4");
  EXPECT_EQ(canonical_value("0.10"), canonical_value("0.1"));
  EXPECT_EQ(canonical_value("1e3"), canonical_value("1000.0"));
  EXPECT_EQ(canonical_value("avx512"), "avx512");
  EXPECT_EQ(canonical_value("-"), "-");
  EXPECT_EQ(canonical_value("\"x\""), "\"x\"");  // a JSON string is text, not a number
}

TEST(ParamsJson, DecodesObjectsOfStringsAndNumbersOnly) {
  const auto v = params_from_json(R"({"TILE": 32, "ISA": "avx2", "ALPHA": 0.50})");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->at("TILE"), "32");
  EXPECT_EQ(v->at("ISA"), "avx2");
  EXPECT_EQ(v->at("ALPHA"), canonical_value("0.5"));
  EXPECT_FALSE(params_from_json("[1, 2]"));
  EXPECT_FALSE(params_from_json("{\"A\": [1]}"));
  EXPECT_FALSE(params_from_json("{\"A\": null}"));
  EXPECT_FALSE(params_from_json("{not json"));
  EXPECT_FALSE(params_from_json(""));
}

TEST(ParamsJson, CanonicalTextIsTheSameForACandidateAndARecordedRow) {
  const std::map<std::string, std::string> candidate{{"ISA", "avx2"}, {"TILE", "32"}, {"ALPHA", "0.50"}};
  const auto recorded = params_from_json(R"({"TILE":32,"ALPHA":0.5,"ISA":"avx2"})");
  ASSERT_TRUE(recorded);
  EXPECT_EQ(canonical_params(candidate), canonical_params(*recorded));
  EXPECT_NE(canonical_params(candidate), canonical_params({{"ISA", "avx2"}, {"TILE", "64"}, {"ALPHA", "0.5"}}));
}

TEST(ParamsJson, GenomesRoundTripThroughTheRowText) {
  const galapagos::core::search_space space(
      {{"TILE", {"8", "16", "32"}}, {"ALPHA", {"0.10", "1e3"}}, {"ISA", {"avx2", "avx512"}}}, nullptr);
  space.enumerate([&](const galapagos::core::genome& g) {
    const auto back = galapagos::run::genome_from_params(space, space.to_json(g));
    EXPECT_TRUE(back && *back == g) << space.to_json(g);
    return true;
  });
  // Another spelling of a value matches; a value or a name the space lacks does not.
  EXPECT_EQ(galapagos::run::genome_from_params(space, R"({"TILE":16,"ALPHA":0.1,"ISA":"avx512"})"),
            (galapagos::core::genome{1, 0, 1}));
  EXPECT_FALSE(galapagos::run::genome_from_params(space, R"({"TILE":12,"ALPHA":0.1,"ISA":"avx512"})"));
  EXPECT_FALSE(galapagos::run::genome_from_params(space, R"({"TILE":16,"ALPHA":0.1})"));
  EXPECT_FALSE(galapagos::run::genome_from_params(space, "[]"));
}
