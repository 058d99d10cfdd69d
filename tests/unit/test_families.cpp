// Family loading: the shipped stencil3d7 family satisfies the plug-in contract, and malformed
// family files fail with an error naming the file and the key.
#include <gtest/gtest.h>

#include <fstream>

#include "eval/probe.hpp"
#include "families/family.hpp"
#include "util/error.hpp"

namespace gf = galapagos::families;

namespace {

const std::filesystem::path kernels = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "kernels";

std::filesystem::path temp_family(const std::string& name, const std::string& toml) {
  const auto dir = std::filesystem::temp_directory_path() / ("glp-family-test-" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "family.toml") << toml;
  std::ofstream(dir / "ref.cpp") << "// reference\n";
  std::ofstream(dir / "t.cpp") << "// template\n";
  return dir / "family.toml";
}

const char* minimal = R"(
name = "tiny"
symbols = ["n"]
tolerance = 1e-12
[[args]]
name = "x"
dtype = "float64"
shape = "n"
intent = "in"
[[args]]
name = "y"
dtype = "float64"
shape = "n"
intent = "out"
[sizes]
tune = { n = 100 }
accept = [ { n = 1 }, { n = 7 } ]
[cost]
bytes = "16*n"
flops = "n"
[reference]
source = "ref.cpp"
[cpu]
template = "t.cpp"
constraints = ["A * B <= 8"]
[[cpu.params]]
name = "A"
values = [1, 2, 4]
[[cpu.params]]
name = "B"
values = [1, 2, 4]
[[cpu.baselines]]
name = "plain"
source = "t.cpp"
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

std::string load_error(const std::string& toml) {
  try {
    gf::load_family_file(temp_family("tiny", toml));
  } catch (const galapagos::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Families, Stencil3d7MeetsThePluginContract) {
  const auto f = gf::load_family("stencil3d7", {kernels});
  EXPECT_EQ(f.symbols, (std::vector<std::string>{"nx", "ny", "nz"}));
  ASSERT_EQ(f.args.size(), 2u);
  EXPECT_EQ(f.args[0].direction, gf::intent::in);
  EXPECT_EQ(f.args[1].direction, gf::intent::out);
  EXPECT_EQ(f.args[0].type, gf::dtype::float64);
  EXPECT_GT(f.tolerance, 0);
  EXPECT_LE(f.tolerance, 1e-10);
  // The tune size is several times larger than the last-level cache the cores can fill.
  const auto& tune = f.fitness_size("tune").values;
  EXPECT_GT(f.bytes(tune), 3.0 * static_cast<double>(galapagos::eval::describe_machine().llc_bytes));
  EXPECT_DOUBLE_EQ(f.bytes(tune), 16.0 * 320 * 240 * 200);
  EXPECT_DOUBLE_EQ(f.flops({1, 1, 1}), 0.0);
  EXPECT_DOUBLE_EQ(f.flops({3, 4, 5}), 8.0 * 1 * 2 * 3);
  // Acceptance sizes include tiny, odd and non-power-of-two shapes.
  bool tiny = false, odd = false;
  for (const auto& a : f.accept_sizes) {
    const auto& s = a.values;
    tiny = tiny || (s[0] * s[1] * s[2] <= 8);
    odd = odd || (s[0] % 2 == 1 && s[1] % 2 == 1 && s[2] % 2 == 1 && s[0] > 8);
  }
  EXPECT_TRUE(tiny);
  EXPECT_TRUE(odd);
  // The CPU template has at least 5 parameters and at least 1000 valid points.
  const auto space = f.space("cpu");
  EXPECT_GE(space.parameters().size(), 5u);
  EXPECT_GE(space.count_valid(1000), 1000u);
  EXPECT_FALSE(f.backend("cpu").baselines.empty());
}

TEST(Families, ConstraintsPruneTheSpace) {
  const auto f = gf::load_family_file(temp_family("tiny", minimal));
  const auto space = f.space("cpu");
  EXPECT_EQ(space.count_valid(100), 8u);  // A*B <= 8 over {1,2,4}^2: all but (4,4)
  EXPECT_TRUE(space.is_valid({1, 2}));
  EXPECT_FALSE(space.is_valid({2, 2}));
  EXPECT_THROW(f.backend("cuda"), galapagos::error);  // the family has no [cuda] table
}

// The validity predicate keeps each constraint's verdicts in a table over the parameters it names:
// for every shipped family and backend it must say what evaluating every expression says, for
// valid and invalid points alike, asked in any order and asked again.
TEST(Families, ConstraintTablesAgreeWithTheExpressions) {
  int families = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kernels)) {
    if (!std::filesystem::is_regular_file(entry.path() / "family.toml")) continue;
    const auto f = gf::load_family_file(entry.path() / "family.toml");
    ++families;
    for (const auto& [name, b] : f.backends) {
      const auto space = f.space(name);
      galapagos::core::rng r(11);
      int valid = 0;
      for (int k = 0; k < 20000; ++k) {
        galapagos::core::genome g(b.params.size());
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = r.below(static_cast<int>(b.params[i].values.size()));
        const bool expected = gf::satisfies_constraints(b, g);
        valid += expected;
        ASSERT_EQ(space.is_valid(g), expected) << f.name << " " << name << " " << space.to_json(g);
        ASSERT_EQ(space.is_valid(g), expected) << f.name << " " << name << " (asked again) " << space.to_json(g);
      }
      if (!b.constraints.empty()) EXPECT_LT(valid, 20000) << f.name << " " << name << ": no draw broke a constraint";
    }
  }
  EXPECT_GE(families, 4);
}

TEST(Families, MalformedFilesNameTheFileAndTheProblem) {
  EXPECT_NE(load_error(replace(minimal, "dtype = \"float64\"", "dtype = \"double\"")).find("args[0].dtype"), std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "tolerance = 1e-12", "tolerance = 1e-12\ncolour = 3")).find("'colour': unknown key"),
            std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "bytes = \"16*n\"", "bytes = \"16*m\"")).find("bad expression"), std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "source = \"ref.cpp\"", "source = \"missing.cpp\"")).find("file not found"),
            std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "tune = { n = 100 }", "small = { n = 100 }")).find("no size named 'tune'"),
            std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "values = [1, 2, 4]", "values = []")).find("at least one value"), std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "intent = \"out\"", "intent = \"in\"")).find("out or inout"), std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "tolerance = 1e-12\n", "")).find("key 'tolerance': missing"), std::string::npos);
  EXPECT_NE(
      load_error(replace(minimal, "shape = \"n\"\nintent = \"in\"", "shape = \"n*\"\nintent = \"in\"")).find("args.x.shape"),
      std::string::npos);
  EXPECT_NE(load_error(replace(minimal, "shape = \"n\"\nintent = \"in\"", "shape = \"rows\"\nintent = \"in\""))
                .find("bad expression 'rows'"),
            std::string::npos);
  const std::string e = load_error("name = \n");
  EXPECT_NE(e.find("family.toml"), std::string::npos);
  EXPECT_NE(e.find("line"), std::string::npos);
}

// A baseline through a vendor library a node may lack is marked optional; the speedup still needs
// one that every node can build.
TEST(Families, OptionalBaselinesNeedACompulsoryOne) {
  const std::string with_optional =
      std::string(minimal) + "[[cpu.baselines]]\nname = \"vendor\"\nsource = \"t.cpp\"\noptional = true\n";
  const auto f = gf::load_family_file(temp_family("tiny", with_optional));
  const auto& b = f.backend("cpu").baselines;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_FALSE(b[0].optional);
  EXPECT_TRUE(b[1].optional);
  const std::string only_optional =
      replace(minimal, "name = \"plain\"\nsource = \"t.cpp\"", "name = \"plain\"\nsource = \"t.cpp\"\noptional = true");
  EXPECT_NE(load_error(only_optional).find("at least one baseline that is not optional"), std::string::npos);
  EXPECT_NE(load_error(replace(with_optional, "optional = true", "optional = \"yes\"")).find("optional"), std::string::npos);
}

TEST(Families, UnknownFamilyListsTheSearchPath) {
  try {
    gf::load_family("no_such_family", {kernels});
    FAIL() << "expected an error";
  } catch (const galapagos::error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown family"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(kernels.string()), std::string::npos);
  }
}
