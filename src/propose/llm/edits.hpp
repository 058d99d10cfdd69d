// Edits a model proposes, as SEARCH/REPLACE blocks:
//
//   <<<<<<< SEARCH
//   lines of the current source
//   =======
//   the lines that replace them
//   >>>>>>> REPLACE
//
// applied only inside the source's evolve regions: the lines between a line that holds
// `galapagos:evolve-begin` and one that holds `galapagos:evolve-end` (in a comment of any
// language; OpenEvolve's `EVOLVE-BLOCK-START` and `EVOLVE-BLOCK-END` mark regions too), unless the whole file may change.
// Matching tolerates differences of white space (indentation, tabs, trailing blanks); a block that matches nowhere, or in several
// places, or outside every region, or that would remove a region's marker, is not applied and says why, so the next prompt can
// tell the model.
#pragma once

#include <string>
#include <vector>

namespace galapagos::propose {

// Whether a line opens (closes) an evolve region: it holds a marker of either spelling.
bool opens_region(const std::string& line);
bool closes_region(const std::string& line);

struct edit_block {
  std::string search, replace;
};

struct parsed_edits {
  std::vector<edit_block> blocks;
  std::vector<std::string> problems;  // malformed blocks (an unterminated SEARCH, ...), one line each
};

// The blocks of a model's answer, in order; text around them is ignored.
parsed_edits parse_edits(const std::string& answer);

struct block_outcome {
  bool applied = false;
  std::string reason;  // why not applied, one line
};

struct edit_result {
  std::string source;                   // with every applicable block applied, in order
  std::vector<block_outcome> outcomes;  // one per block
  int applied() const;
};

// Applies the blocks in order. whole_file: every line may change (no regions needed).
// Throws std::invalid_argument when the source has no evolve region and whole_file is false,
// or when its markers do not pair up.
edit_result apply_edits(const std::string& source, const std::vector<edit_block>& blocks, bool whole_file = false);

}  // namespace galapagos::propose
