// fmt's compiled part, built once here instead of in every file that formats (FMT_HEADER_ONLY made
// each of them compile it again). format-inl.h defines it; the templates below are the ones a
// library build of fmt instantiates for char and wchar_t.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl<wchar_t>(locale_ref) -> wchar_t;
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
