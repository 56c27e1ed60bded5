# PayPulse Gmail Connect. `make demo` runs the main job on the embedded store;
# `make test` runs every test (against a moto_server it starts on 127.0.0.1).
# Both install what a fresh machine lacks (libcurl/SQLite headers via apt, moto via pip).

SWIFT ?= swift
STATE_DIR ?= .paypulse

.PHONY: demo test build deps clean check-template

demo: deps
	$(SWIFT) build --product paypulse
	PAYPULSE_STATE_DIR=$(STATE_DIR) .build/debug/paypulse demo

test:
	scripts/ensure-deps.sh --with-moto
	scripts/build-checked.sh
	scripts/with-moto.sh $(SWIFT) test --skip-build

build: deps
	$(SWIFT) build

deps:
	scripts/ensure-deps.sh

clean:
	rm -rf .build $(STATE_DIR)

# AWS SAM (`sam build`, BuildMethod makefile) runs build-<LogicalId> with ARTIFACTS_DIR set;
# samconfig.toml builds in source, so the four targets share one release build.
.PHONY: build-StoreTokensFunction build-UserProfileFunction build-TokenRefreshFunction build-DisconnectFunction
build-StoreTokensFunction:
	scripts/bundle.sh --function store-tokens --artifacts "$(ARTIFACTS_DIR)"
build-UserProfileFunction:
	scripts/bundle.sh --function user-profile --artifacts "$(ARTIFACTS_DIR)"
build-TokenRefreshFunction:
	scripts/bundle.sh --function token-refresh --artifacts "$(ARTIFACTS_DIR)"
build-DisconnectFunction:
	scripts/bundle.sh --function disconnect --artifacts "$(ARTIFACTS_DIR)"

# cfn-lint, sam validate --lint, sam build (no container) and the template's own checks.
check-template: deps
	scripts/check-template.sh
