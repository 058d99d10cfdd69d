// Arithmetic expressions from family.toml (shapes, cost model, constraints), evaluated with
// muParser over named variables. Compiled once, evaluated many times.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace galapagos::families {

class expression {
 public:
  // Throws galapagos::error "<origin>: bad expression '<text>': <reason>" when the text does not
  // parse or uses a name outside `variables`.
  expression(const std::string& text, const std::vector<std::string>& variables, const std::string& origin);
  expression(expression&&) noexcept;
  expression& operator=(expression&&) noexcept;
  ~expression();

  // values[i] belongs to variables[i] of the constructor.
  double evaluate(const std::vector<double>& values) const;
  const std::string& text() const;
  // The variables the expression names (a subset of the constructor's).
  std::vector<std::string> variables_used() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace galapagos::families
