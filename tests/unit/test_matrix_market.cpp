// The Matrix Market reader (kernels/include/glp_matrix_market.hpp): real SuiteSparse matrices from
// ../shared/data/matrices (skipped when absent), hand-written files in tests/data/mtx with their
// exact CSR, and one malformed file per error, each message naming the file, the line and the
// problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "glp_matrix_market.hpp"

namespace mm = glp::mm;

namespace {

const std::filesystem::path data_dir = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "tests" / "data" / "mtx";
const std::filesystem::path shared_dir = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / ".." / "shared" / "data" / "matrices";

std::string data(const std::string& name) { return (data_dir / name).string(); }

// A(i,j) with 0-based indices; 0 when (i,j) is not stored. Also checks the row is sorted.
double at(const mm::csr& m, std::int64_t i, std::int64_t j, bool* stored = nullptr) {
  if (stored) *stored = false;
  for (std::int64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k)
    if (m.col_idx[k] == j) {
      if (stored) *stored = true;
      return m.values[k];
    }
  return 0.0;
}

// Structural invariants every result must satisfy.
void expect_valid_csr(const mm::csr& m) {
  ASSERT_EQ(m.row_ptr.size(), static_cast<std::size_t>(m.nrows) + 1);
  ASSERT_EQ(m.col_idx.size(), m.values.size());
  EXPECT_EQ(m.row_ptr.front(), 0);
  EXPECT_EQ(m.row_ptr.back(), m.nnz());
  for (std::int64_t i = 0; i < m.nrows; ++i) {
    ASSERT_LE(m.row_ptr[i], m.row_ptr[i + 1]);
    for (std::int64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
      ASSERT_GE(m.col_idx[k], 0);
      ASSERT_LT(m.col_idx[k], m.ncols);
      if (k > m.row_ptr[i]) {
        ASSERT_LT(m.col_idx[k - 1], m.col_idx[k]) << "row " << i << " not sorted or has duplicates";
      }
    }
  }
}

// Reads `file` expecting an error; returns the message.
std::string read_error(const std::string& file, const mm::options& opt = {}) {
  try {
    mm::read(data(file), opt);
  } catch (const mm::error& e) {
    EXPECT_EQ(e.file(), data(file));
    return e.what();
  }
  ADD_FAILURE() << file << ": no error";
  return {};
}

void expect_error(const std::string& file, std::int64_t line, const std::string& problem) {
  const std::string msg = read_error(file);
  EXPECT_NE(msg.find(data(file)), std::string::npos) << msg;
  if (line > 0) {
    EXPECT_NE(msg.find(": line " + std::to_string(line) + ": "), std::string::npos) << msg;
  }
  EXPECT_NE(msg.find(problem), std::string::npos) << "expected '" << problem << "' in: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Real matrices
// ---------------------------------------------------------------------------------------------

TEST(MatrixMarket, Bus1138SymmetricExpansion) {
  const auto file = shared_dir / "1138_bus.mtx";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const mm::csr m = mm::read(file.string());
  expect_valid_csr(m);
  EXPECT_EQ(m.info.value_field, mm::field::real);
  EXPECT_EQ(m.info.symmetry_kind, mm::symmetry::symmetric);
  EXPECT_EQ(m.info.nrows, 1138);
  EXPECT_EQ(m.info.ncols, 1138);
  EXPECT_EQ(m.info.entries, 2596);
  EXPECT_EQ(m.nrows, 1138);
  EXPECT_EQ(m.ncols, 1138);
  // 2596 stored = 1138 diagonal + 1458 below it; expanded: 1138 + 2*1458.
  EXPECT_EQ(m.nnz(), 4054);
  std::int64_t diagonal = 0;
  for (std::int64_t i = 0; i < m.nrows; ++i) {
    bool s = false;
    at(m, i, i, &s);
    diagonal += s;
  }
  EXPECT_EQ(diagonal, 1138);
  EXPECT_EQ(m.nnz(), diagonal + 2 * (m.info.entries - diagonal));
  // spot values (file lines "1 1 1474.779", "5 1 -9.017133", "27 4 -.4755112", "1137 802 -10000",
  // "1138 1138 117.647") and their mirrors
  EXPECT_DOUBLE_EQ(at(m, 0, 0), 1474.779);
  EXPECT_DOUBLE_EQ(at(m, 4, 0), -9.017133);
  EXPECT_DOUBLE_EQ(at(m, 0, 4), -9.017133);
  EXPECT_DOUBLE_EQ(at(m, 26, 3), -0.4755112);
  EXPECT_DOUBLE_EQ(at(m, 3, 26), -0.4755112);
  EXPECT_DOUBLE_EQ(at(m, 1136, 801), -10000.0);
  EXPECT_DOUBLE_EQ(at(m, 801, 1136), -10000.0);
  EXPECT_DOUBLE_EQ(at(m, 1137, 1137), 117.647);
  // symmetric everywhere
  for (std::int64_t i = 0; i < m.nrows; ++i)
    for (std::int64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
      bool s = false;
      EXPECT_EQ(at(m, m.col_idx[k], i, &s), m.values[k]);
      EXPECT_TRUE(s);
    }
}

TEST(MatrixMarket, Ani4General) {
  const auto file = shared_dir / "ani4.mtx";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const mm::csr m = mm::read(file.string());
  expect_valid_csr(m);
  EXPECT_EQ(m.info.symmetry_kind, mm::symmetry::general);
  EXPECT_EQ(m.info.entries, 20971);
  EXPECT_EQ(m.nrows, 3081);
  EXPECT_EQ(m.ncols, 3081);
  EXPECT_EQ(m.nnz(), 20971);  // general: no expansion, no duplicates
  // first and last lines of the file
  EXPECT_DOUBLE_EQ(at(m, 0, 0), 1.0);
  EXPECT_DOUBLE_EQ(at(m, 1, 0), -0.0004995004995004994);
  EXPECT_DOUBLE_EQ(at(m, 2, 0), -0.4995004995004995);
  EXPECT_DOUBLE_EQ(at(m, 0, 1), -0.0004995004995004994);
  EXPECT_DOUBLE_EQ(at(m, 3078, 3080), -0.0004995004995004994);
  EXPECT_DOUBLE_EQ(at(m, 3079, 3080), -0.4995004995004995);
  EXPECT_DOUBLE_EQ(at(m, 3080, 3080), 1.0);
}

TEST(MatrixMarket, HeaderOnly) {
  const auto file = shared_dir / "1138_bus.mtx";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const mm::header h = mm::read_header(file.string());
  EXPECT_EQ(h.nrows, 1138);
  EXPECT_EQ(h.entries, 2596);
  EXPECT_EQ(h.symmetry_kind, mm::symmetry::symmetric);
}

// ---------------------------------------------------------------------------------------------
// Hand-written valid files: exact CSR
// ---------------------------------------------------------------------------------------------

TEST(MatrixMarket, GeneralReal) {
  const mm::csr m = mm::read(data("general_real.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.nrows, 4);
  EXPECT_EQ(m.ncols, 5);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 3, 5, 5, 8}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{0, 1, 3, 1, 4, 0, 2, 4}));
  // 1.5, 7, +3 | -.25, 0.0 (an explicit zero is kept) | (empty) | 1.0D+02, -1E1, -2e-3
  EXPECT_EQ(m.values, (std::vector<double>{1.5, 7.0, 3.0, -0.25, 0.0, 100.0, -10.0, -2e-3}));
}

TEST(MatrixMarket, IntegerGeneral) {
  const mm::csr m = mm::read(data("integer_general.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.info.value_field, mm::field::integer);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{0, 2, 2, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{2.0, 9007199254740992.0, 40.0, -7.0}));
}

TEST(MatrixMarket, PatternGeneral) {
  const mm::csr m = mm::read(data("pattern_general.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.info.value_field, mm::field::pattern);
  EXPECT_EQ(m.nrows, 3);
  EXPECT_EQ(m.ncols, 2);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{0, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(MatrixMarket, SymmetricReal) {
  const mm::csr m = mm::read(data("symmetric_real.mtx"));
  expect_valid_csr(m);
  // 4 1 0 2 / 1 5 3 0 / 0 3 6 0 / 2 0 0 0
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 3, 6, 8, 9}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{0, 1, 3, 0, 1, 2, 1, 2, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{4, 1, 2, 1, 5, 3, 3, 6, 2}));
}

TEST(MatrixMarket, PatternSymmetric) {
  const mm::csr m = mm::read(data("pattern_symmetric.mtx"));
  expect_valid_csr(m);
  // (1,1), (3,1)+(1,3), (3,2)+(2,3)
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{0, 2, 2, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>(5, 1.0)));
}

TEST(MatrixMarket, SkewSymmetric) {
  const mm::csr m = mm::read(data("skew_symmetric.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.info.symmetry_kind, mm::symmetry::skew_symmetric);
  // 0 -2 0 / 2 0 -5 / 0 5 0
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{-2, 2, -5, 5}));
}

TEST(MatrixMarket, CommentsBlankLinesCrlfAndCase) {
  const mm::csr m = mm::read(data("comments.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.nrows, 2);
  EXPECT_EQ(m.ncols, 3);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 1, 3}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{1.25, -1, 4}));
}

TEST(MatrixMarket, DuplicatesSummedByDefault) {
  const mm::csr m = mm::read(data("duplicates.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{6, 5}));
}

TEST(MatrixMarket, DuplicatesRejectedOnRequest) {
  mm::options opt;
  opt.duplicates = mm::duplicate_policy::reject;
  const std::string msg = read_error("duplicates.mtx", opt);
  EXPECT_NE(msg.find(data("duplicates.mtx") + ": line 6: duplicate entry (1,2), also stored on line 4"), std::string::npos)
      << msg;
}

TEST(MatrixMarket, SymmetricDuplicateNamedAsStored) {
  std::istringstream in("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n3 1 1\n2 2 1\n3 1 2\n");
  mm::options opt;
  opt.duplicates = mm::duplicate_policy::reject;
  try {
    mm::read(in, "sym.mtx", opt);
    FAIL() << "no error";
  } catch (const mm::error& e) {
    EXPECT_STREQ(e.what(), "sym.mtx: line 5: duplicate entry (3,1), also stored on line 3");
  }
  std::istringstream again("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n3 1 1\n2 2 1\n3 1 2\n");
  const mm::csr m = mm::read(again, "sym.mtx");  // summed by default, mirror included
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{2, 1, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{3, 1, 3}));
}

TEST(MatrixMarket, NoEntries) {
  const mm::csr m = mm::read(data("empty_matrix.mtx"));
  expect_valid_csr(m);
  EXPECT_EQ(m.nrows, 3);
  EXPECT_EQ(m.ncols, 2);
  EXPECT_EQ(m.nnz(), 0);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 0, 0, 0}));
}

TEST(MatrixMarket, FromStreamUsesTheGivenName) {
  std::istringstream in("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");
  try {
    mm::read(in, "inline.mtx");
    FAIL() << "no error";
  } catch (const mm::error& e) {
    EXPECT_STREQ(e.what(), "inline.mtx: line 3: row index 3 out of range 1..2");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.problem(), "row index 3 out of range 1..2");
  }
}

// ---------------------------------------------------------------------------------------------
// Malformed files: one error each, naming the file, the line and the problem
// ---------------------------------------------------------------------------------------------

TEST(MatrixMarketErrors, BadBanner) {
  expect_error("bad_banner.mtx", 1, "bad banner: the first line must start with '%%MatrixMarket', found '%%MatrixMarkt'");
  expect_error("bad_banner_words.mtx", 1,
               "bad banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>' (5 words), found 4");
  expect_error("no_banner.mtx", 1, "bad banner");
  expect_error("empty_file.mtx", 0, "empty file");
}

TEST(MatrixMarketErrors, UnsupportedFormats) {
  expect_error("array_format.mtx", 1, "unsupported format 'array' (dense): only 'coordinate'");
  expect_error("complex_field.mtx", 1, "unsupported field 'complex'");
  expect_error("hermitian.mtx", 1, "unsupported symmetry 'hermitian'");
  expect_error("pattern_skew.mtx", 1, "unsupported combination 'pattern skew-symmetric'");
}

TEST(MatrixMarketErrors, WrongSizeLine) {
  expect_error("size_line_two_fields.mtx", 3,
               "wrong size line: expected '<rows> <columns> <entries>' (3 integers), found 2 fields");
  expect_error("size_line_not_numeric.mtx", 2, "wrong size line: '3 x 1' is not three non-negative integers");
  expect_error("size_line_negative.mtx", 2, "wrong size line");
  expect_error("symmetric_not_square.mtx", 2, "a symmetric matrix must be square, found 3 x 4");
  expect_error("no_size_line.mtx", 2, "file ends before the size line");
}

TEST(MatrixMarketErrors, EntryCountMismatch) {
  expect_error("too_few_entries.mtx", 5, "file ends after 3 entries, but the size line (line 2) declares 4");
  expect_error("too_many_entries.mtx", 5, "more entries than the 2 declared on the size line (line 2)");
}

TEST(MatrixMarketErrors, IndexOutOfRange) {
  expect_error("row_out_of_range.mtx", 4, "row index 5 out of range 1..4");
  expect_error("column_out_of_range.mtx", 4, "column index 0 out of range 1..5");
  expect_error("index_not_integer.mtx", 4, "row index '2.0' is not an integer");
}

TEST(MatrixMarketErrors, BadValues) {
  expect_error("value_not_numeric.mtx", 4, "value 'abc' is not a finite real number");
  expect_error("value_nan.mtx", 3, "value 'nan' is not a finite real number");
  expect_error("integer_with_fraction.mtx", 4, "value '1.5' is not an integer (the field is 'integer')");
  expect_error("missing_value.mtx", 4, "expected 3 fields ('<row> <column> <value>' for a real matrix), found 2");
  expect_error("pattern_with_value.mtx", 4, "expected 2 fields ('<row> <column>' for a pattern matrix), found 3");
}

TEST(MatrixMarketErrors, SymmetryViolations) {
  expect_error("skew_diagonal.mtx", 4, "diagonal entry (2,2) in a skew-symmetric file");
  expect_error("symmetric_upper.mtx", 4, "entry (1,3) is above the diagonal; a symmetric file stores only the lower triangle");
}

TEST(MatrixMarketErrors, TooManyRows) {
  std::istringstream in("%%MatrixMarket matrix coordinate real general\n1000000000000 2 1\n1 1 1\n");
  try {
    mm::read(in, "huge.mtx");
    FAIL() << "no error";
  } catch (const mm::error& e) {
    EXPECT_STREQ(
        e.what(),
        "huge.mtx: line 2: wrong size line: 1000000000000 rows exceed the reader's limit of 2147483647 (options::max_rows)");
  }
}

TEST(MatrixMarketErrors, MissingFile) {
  const std::string path = data("does_not_exist.mtx");
  try {
    mm::read(path);
    FAIL() << "no error";
  } catch (const mm::error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open the file for reading");
  }
}
