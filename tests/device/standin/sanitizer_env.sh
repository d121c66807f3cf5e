# Sourced by the command-line tests that use the aclnn stand-in library of
# the build under test (tests/cli/aclnn_standin.sh, device_roundtrip.sh,
# device_worker.sh).  In a sanitized build the library carries the
# sanitizers but not their runtime, which is the program's: a C program
# that links it is built with the same flags, and Python, which has no
# runtime of its own, gets it preloaded.
#
# standin_setup BUILD: sets standin_sanitized (1 or 0), standin_cc (the
# build's compiler),
# standin_cflags (for a program linking the library) and standin_pyenv (a
# command prefix for python3: empty, or env LD_PRELOAD=... with leak
# detection off, since the interpreter's own allocations are never freed).
standin_setup() {
  local cache=$1/CMakeCache.txt
  standin_cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache")
  [ -n "$standin_cc" ] || standin_cc=${CC:-cc}
  standin_cflags="-O1 -g"
  standin_pyenv=()
  standin_sanitized=0
  if grep -q '^FIA_SANITIZE:BOOL=ON' "$cache"; then
    standin_sanitized=1
    standin_cflags="$standin_cflags -fsanitize=address,undefined"
    local rt
    rt=$("$standin_cc" -print-file-name=libclang_rt.asan-x86_64.so)
    [ -f "$rt" ] || rt=$("$standin_cc" -print-file-name=libasan.so)
    standin_pyenv=(env "LD_PRELOAD=$rt" ASAN_OPTIONS=detect_leaks=0)
  fi
}

# standin_light CASE...: the cases, without the heavy ones when the build
# is sanitized (standin_setup first).  Each case below takes over 3 s of
# `fiacheck run` or `fiacheck export` under ASan+UBSan (measured: run 4 to
# 24 s each, together 94 of the 117 s the 69 cases written through an
# interface take; the two T / H maximum rejections 29 of the 33 s export
# takes on device_roundtrip.sh's aclnn_v2 folders, 272 MB of inputs), and a
# test runs each twice or more; what they check is also checked by lighter
# cases (the documents' examples at other shapes, the interfaces' batch
# limits by the rejected batch-65536 cases, which stay).
standin_heavy="corpus/cases/api/incre_flash_attention_doc_example_graph.case
corpus/cases/query_quant/full_quant_dsq_bnsd_128_heads.case
corpus/cases/api/torch_npu_v2_doc_example_graph.case
corpus/cases/api/torch_npu_v2_doc_example.case
corpus/cases/api/mindspore_prefill_batch_65535.case
corpus/cases/api/incre_flash_attention_batch_65535.case
corpus/cases/api/mindspore_decode_batch_65536.case
corpus/cases/tnd/reject_t_max.case
corpus/cases/paged/reject_cache_h_max.case"
standin_light() {
  if [ "$standin_sanitized" -eq 0 ]; then
    printf '%s\n' "$@"
  else
    printf '%s\n' "$@" | grep -vxF "$standin_heavy"
  fi
}
