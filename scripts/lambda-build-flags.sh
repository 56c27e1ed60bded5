# The release build of the Lambda functions, in one place: sourced by scripts/bundle.sh and
# by anything that must build .build-lambda the same way (scripts/bench/run.sh), since a
# build with other flags recompiles everything there. Defines:
#
#   lambda_scratch       the scratch path (.build-lambda, or PAYPULSE_LAMBDA_SCRATCH)
#   lambda_build_flags   the arguments of `swift build` for it
#
# Release, one static executable per product (the Swift runtime, glibc, libstdc++ and SQLite
# linked in: Amazon Linux 2023's glibc is older than Debian's, and a static executable needs
# neither a loader nor libraries of the host, nor their start-up relocations: a third of a
# cold start's instructions), and the minimal static libcurl of scripts/build-libcurl.sh
# (built on first use, then kept): CCurl compiles against its headers with
# PAYPULSE_CURL_STATIC (so it calls libcurl rather than dlopen()ing it), and the linker gets
# libcurl.a and what it needs (OpenSSL's static libraries). Name lookups: glibc has had its
# `files` and `dns` sources built in since 2.34, which is all a static executable uses.
# No debug information (-gnone): the bundles are stripped of it anyway, and without it the
# build takes 22% less CPU here (329 against 422 CPU-seconds from clean, 2026-11-28).
# Usage: . scripts/lambda-build-flags.sh && swift build "${lambda_build_flags[@]}" [--product F]
lambda_scratch=${PAYPULSE_LAMBDA_SCRATCH:-.build-lambda}
lambda_curl=$(scripts/build-libcurl.sh)
lambda_build_flags=(
  -c release -Xswiftc -static-executable -Xswiftc -gnone --scratch-path "$lambda_scratch"
  -Xcc -DPAYPULSE_CURL_STATIC -Xcc -I"$lambda_curl/include"
  -Xlinker "$lambda_curl/lib/libcurl.a"
)
while read -r lambda_link_input; do
  lambda_build_flags+=(-Xlinker "$lambda_link_input")
done <"$lambda_curl/link-flags"
unset lambda_link_input
