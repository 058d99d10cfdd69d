#include "eval/symbols.hpp"

#include <elf.h>

#include <array>
#include <cstring>
#include <string_view>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::eval {

namespace {

// A 64-bit ELF file read whole, with bounds-checked access to its section headers.
class elf_image {
 public:
  explicit elf_image(const std::filesystem::path& path) : path_(path), image_(util::read_file(path.string())) {
    if (image_.size() < sizeof(Elf64_Ehdr) || std::memcmp(image_.data(), ELFMAG, SELFMAG) != 0) fail("not an ELF file");
    std::memcpy(&eh_, image_.data(), sizeof eh_);
    if (eh_.e_ident[EI_CLASS] != ELFCLASS64) fail("not a 64-bit ELF file");
    if (eh_.e_shoff + std::uint64_t{eh_.e_shnum} * sizeof(Elf64_Shdr) > image_.size()) fail("truncated section table");
  }
  [[noreturn]] void fail(const std::string& why) const { throw error(path_.string(), why); }
  std::size_t sections() const { return eh_.e_shnum; }
  Elf64_Shdr section(std::size_t i) const {
    Elf64_Shdr sh;
    std::memcpy(&sh, image_.data() + eh_.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > image_.size()) fail("truncated section");
    return sh;
  }
  // Entry k of a table section of T records.
  template <class T>
  T entry(const Elf64_Shdr& sh, std::size_t k) const {
    T t;
    std::memcpy(&t, image_.data() + sh.sh_offset + k * sizeof(T), sizeof t);
    return t;
  }
  // A NUL-terminated string at `offset` of string table section `strtab_index`.
  std::string string_at(std::size_t strtab_index, std::size_t offset) const {
    if (strtab_index >= sections()) fail("bad string table index");
    const Elf64_Shdr st = section(strtab_index);
    if (offset >= st.sh_size) fail("bad string offset");
    const char* p = image_.data() + st.sh_offset + offset;
    return std::string(p, strnlen(p, st.sh_size - offset));
  }

 private:
  std::filesystem::path path_;
  std::string image_;
  Elf64_Ehdr eh_{};
};

}  // namespace

std::vector<exported_symbol> exported_symbols(const std::filesystem::path& path) {
  const elf_image elf(path);
  std::vector<exported_symbol> out;
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    const Elf64_Shdr sh = elf.section(i);
    if (sh.sh_type != SHT_DYNSYM) continue;
    for (std::size_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      const auto s = elf.entry<Elf64_Sym>(sh, k);
      const int bind = ELF64_ST_BIND(s.st_info);
      const int vis = ELF64_ST_VISIBILITY(s.st_other);
      if (s.st_shndx == SHN_UNDEF || bind == STB_LOCAL || vis == STV_HIDDEN || vis == STV_INTERNAL) continue;
      out.push_back({elf.string_at(sh.sh_link, s.st_name), bind == STB_WEAK || bind == STB_GNU_UNIQUE,
                     ELF64_ST_TYPE(s.st_info) == STT_FUNC});
    }
  }
  return out;
}

std::vector<std::string> needed_libraries(const std::filesystem::path& path) {
  const elf_image elf(path);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    const Elf64_Shdr sh = elf.section(i);
    if (sh.sh_type != SHT_DYNAMIC) continue;
    for (std::size_t k = 0; k < sh.sh_size / sizeof(Elf64_Dyn); ++k) {
      const auto d = elf.entry<Elf64_Dyn>(sh, k);
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED) out.push_back(elf.string_at(sh.sh_link, d.d_un.d_val));
    }
  }
  return out;
}

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Names a candidate may never define, whatever their binding: they would stand in for the
// runtime that measures and checks it.
bool reserved(std::string_view n) {
  static constexpr std::array<std::string_view, 19> prefixes = {
      "omp_",     "GOMP_",  "kmp_",      "__kmp", "MPI_",  "PMPI_", "cuda", "cu",     "__cuda", "hip",
      "pthread_", "__libc", "__pthread", "_dl_",  "__tls", "mem",   "str",  "__cxa_", "_Unwind"};
  static constexpr std::array<std::string_view, 44> names = {"clock_gettime",  "clock_getres", "gettimeofday",
                                                             "time",           "clock",        "times",
                                                             "getrusage",      "nanosleep",    "clock_nanosleep",
                                                             "sleep",          "usleep",       "rdtsc",
                                                             "__rdtsc",        "malloc",       "free",
                                                             "calloc",         "realloc",      "aligned_alloc",
                                                             "posix_memalign", "memalign",     "valloc",
                                                             "mmap",           "munmap",       "mprotect",
                                                             "dlopen",         "dlsym",        "dlclose",
                                                             "open",           "openat",       "read",
                                                             "write",          "close",        "exit",
                                                             "_exit",          "abort",        "signal",
                                                             "sigaction",      "raise",        "kill",
                                                             "fork",           "syscall",      "printf",
                                                             "fprintf",        "puts"};
  for (auto p : prefixes)
    if (starts_with(n, p)) return true;
  for (auto x : names)
    if (n == x) return true;
  // C++ operators new and delete (_Znwm, _Znam, _ZdlPv, ...).
  return starts_with(n, "_Znw") || starts_with(n, "_Zna") || starts_with(n, "_Zdl") || starts_with(n, "_Zda");
}

bool added_by_toolchain(std::string_view n) {
  return n == "_init" || n == "_fini" || n == "_edata" || n == "_end" || n == "__bss_start" || n == "__dso_handle" ||
         n == "_ITM_registerTMCloneTable" || n == "_ITM_deregisterTMCloneTable";
}

}  // namespace

std::string check_exports(const std::vector<exported_symbol>& symbols, const std::string& entry_point) {
  bool has_entry = false;
  for (const auto& s : symbols) {
    if (s.name == entry_point) {
      has_entry = true;
      continue;
    }
    if (s.name == "glp_setup") continue;  // the optional setup phase of the same ABI
    if (reserved(s.name)) return "defines reserved symbol '" + s.name + "' (runtime, timer or allocator)";
    if (added_by_toolchain(s.name)) continue;
    // Weak C++ instantiations of inline functions and templates are the compiler's doing.
    if (s.weak && starts_with(s.name, "_Z")) continue;
    return "exports '" + s.name + "' besides the entry point " + entry_point;
  }
  if (!has_entry) return "does not export the entry point " + entry_point;
  return {};
}

}  // namespace galapagos::eval
