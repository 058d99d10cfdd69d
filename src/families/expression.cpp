#include "families/expression.hpp"

#include <muParser.h>

#include "util/error.hpp"

namespace galapagos::families {

struct expression::impl {
  std::string text;
  std::string origin;
  mu::Parser parser;
  std::vector<double> slots;  // muParser reads variables through these addresses
};

expression::expression(const std::string& text, const std::vector<std::string>& variables, const std::string& origin)
    : impl_(std::make_unique<impl>()) {
  impl_->text = text;
  impl_->origin = origin;
  impl_->slots.assign(variables.size(), 0.0);
  try {
    for (std::size_t i = 0; i < variables.size(); ++i) impl_->parser.DefineVar(variables[i], &impl_->slots[i]);
    impl_->parser.SetExpr(text);
    impl_->parser.Eval();  // forces parsing now so that errors surface at load time
  } catch (const mu::Parser::exception_type& e) {
    throw error(origin, "bad expression '" + text + "': " + e.GetMsg());
  }
}

expression::expression(expression&&) noexcept = default;
expression& expression::operator=(expression&&) noexcept = default;
expression::~expression() = default;

double expression::evaluate(const std::vector<double>& values) const {
  std::copy(values.begin(), values.end(), impl_->slots.begin());
  try {
    return impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw error(impl_->origin, "cannot evaluate '" + impl_->text + "': " + e.GetMsg());
  }
}

const std::string& expression::text() const { return impl_->text; }

std::vector<std::string> expression::variables_used() const {
  std::vector<std::string> out;
  try {
    for (const auto& [name, address] : impl_->parser.GetUsedVar()) out.push_back(name);
  } catch (const mu::Parser::exception_type& e) {
    throw error(impl_->origin, "bad expression '" + impl_->text + "': " + e.GetMsg());
  }
  return out;
}

}  // namespace galapagos::families
