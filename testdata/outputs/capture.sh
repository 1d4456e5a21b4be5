#!/usr/bin/env bash
# capture.sh OUTDIR [WORKDIR]
#
# Rebuilds the throwaway projects behind testdata/outputs and captures every
# fixture again from the real tools, through a 120x40 pty (script(1)), into
# OUTDIR/<tool>/<case>.{out,cmd,exit}. patterns/FIXTURES.md says what it
# needs; a tool that is missing is skipped with a message. Timings in the
# new outputs differ from the committed ones; TestLiveFixtures (go test
# ./patterns/ with FLOWDECK_LIVE_OUTPUTS=OUTDIR) compares everything else.
set -u
out=$(realpath -m "${1:?usage: capture.sh OUTDIR [WORKDIR]}")
work=$(realpath -m "${2:-$(mktemp -d)}")
mkdir -p "$out" "$work"
export GOFLAGS=-count=1 NPM_CONFIG_USERCONFIG=/dev/null NO_UPDATE_NOTIFIER=1
unset NO_COLOR

have() { command -v "$1" >/dev/null 2>&1; }
skip() { echo "capture: skipping $1: $2" >&2; }

# cap TOOL CASE DIR CMD...: run CMD in DIR in a pty, save the fixture.
cap() {
	local tool=$1 case=$2 dir=$3
	shift 3
	mkdir -p "$out/$tool"
	(cd "$dir" && script -qefc "stty cols 120 rows 40 2>/dev/null; $*" /dev/null </dev/null >"$out/$tool/$case.out" 2>&1)
	echo $? >"$out/$tool/$case.exit"
	echo "$*" >"$out/$tool/$case.cmd"
	echo "captured $tool/$case (exit $(cat "$out/$tool/$case.exit"))"
}

# ---------------------------------------------------------------- Go
go_projects() {
	local g=$work/gomod
	rm -rf "$g" && mkdir -p "$g"/{calc,strs,skippy,notests,broken}
	printf 'module example.com/demo\n\ngo 1.26\n' >"$g/go.mod"
	cat >"$g/calc/calc.go" <<'EOF'
package calc

func Add(a, b int) int { return a + b }
func Mul(a, b int) int { return a * b }
EOF
	cat >"$g/calc/calc_test.go" <<'EOF'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("2+3")
	}
}

func TestMul(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b, want int
	}{
		{"small", 2, 3, 6}, {"zero", 0, 9, 0}, {"neg", -2, 4, -8},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Mul(c.a, c.b); got != c.want {
				t.Errorf("Mul(%d,%d)=%d want %d", c.a, c.b, got, c.want)
			}
		})
	}
}
EOF
	cat >"$g/strs/strs.go" <<'EOF'
package strs

import "strings"

func Shout(s string) string { return strings.ToUpper(s) + "!" }
EOF
	cat >"$g/strs/strs_test.go" <<'EOF'
package strs

import "testing"

func TestShout(t *testing.T) {
	if Shout("hi") != "HI!" {
		t.Fatal("shout")
	}
}

func TestShoutEmpty(t *testing.T) {
	if Shout("") != "!" {
		t.Fatal("empty")
	}
}
EOF
	cat >"$g/skippy/skippy.go" <<'EOF'
package skippy

func Slow() int { return 42 }
EOF
	cat >"$g/skippy/skippy_test.go" <<'EOF'
package skippy

import "testing"

func TestSlow(t *testing.T) {
	t.Skip("slow test skipped in short mode")
}

func TestFast(t *testing.T) {
	if Slow() != 42 {
		t.Fatal("slow")
	}
}
EOF
	printf 'package notests\n\nfunc Nothing() {}\n' >"$g/notests/notests.go"
	cat >"$g/broken/broken.go" <<'EOF'
package broken

func Div(a, b int) int { return a / b }

func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return lo // bug
	}
	return v
}
EOF
	cat >"$g/broken/broken_test.go" <<'EOF'
package broken

import "testing"

func TestDiv(t *testing.T) {
	if Div(6, 3) != 2 {
		t.Fatal("div")
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(15, 0, 10); got != 10 {
		t.Errorf("Clamp(15,0,10) = %d, want 10", got)
	}
}

func TestClampTable(t *testing.T) {
	for _, c := range []struct {
		name    string
		v, want int
	}{{"inside", 5, 5}, {"above", 99, 10}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Clamp(c.v, 0, 10); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}

func TestSkipMe(t *testing.T) { t.Skip("not yet") }
EOF
	rm -rf "$work"/{gopass,gofail,gobuild,govet,gopanic,gobig}
	cp -r "$g" "$work/gopass" && rm -rf "$work/gopass/broken"
	mkdir -p "$work/gopass/cmd/demo"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("demo") }\n' >"$work/gopass/cmd/demo/main.go"
	cp -r "$g" "$work/gofail"
	mkdir -p "$work/gobuild/cmd/demo"
	cp -r "$g/calc" "$g/go.mod" "$work/gobuild/"
	printf 'package calc\n\nfunc Sub(a, b int) int { return a - c }\n\nfunc Neg(a int) string { return -a }\n' >"$work/gobuild/calc/extra.go"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Printf("%%d\\n", "x") }\n' >"$work/gobuild/cmd/demo/main.go"
	cp -r "$work/gopass" "$work/govet"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Printf("%%d\\n", "demo") }\n' >"$work/govet/cmd/demo/main.go"
	cp -r "$work/gopass" "$work/gopanic"
	printf 'package strs\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) {\n\tvar m map[string]int\n\tm["x"] = 1\n}\n' >"$work/gopanic/strs/panic_test.go"
	local b=$work/gobig p t
	mkdir -p "$b" && printf 'module example.com/big\n\ngo 1.26\n' >"$b/go.mod"
	for p in $(seq -w 1 12); do
		mkdir -p "$b/pkg$p"
		printf 'package pkg%s\n\nfunc Twice(n int) int { return 2 * n }\n' "$p" >"$b/pkg$p/p.go"
		{
			printf 'package pkg%s\n\nimport "testing"\n\n' "$p"
			for t in $(seq 1 11); do
				printf 'func TestTwice%d(t *testing.T) {\n\tif Twice(%d) != %d {\n\t\tt.Fatal("twice")\n\t}\n}\n\n' "$t" "$t" $((2 * t))
			done
		} >"$b/pkg$p/p_test.go"
	done
	printf 'package pkg01\n\nimport "testing"\n\nfunc TestSkipped(t *testing.T) { t.Skip("needs network") }\n' >"$b/pkg01/skip_test.go"
}

capture_go() {
	have go || { skip go "go not found"; return; }
	go_projects
	cap gotest pass_plain "$work/gopass" go test ./...
	cap gotest pass_verbose "$work/gopass" go test -v ./...
	cap gotest pass_json "$work/gopass" go test -json ./...
	cap gotest fail_plain "$work/gofail" go test ./...
	cap gotest fail_verbose "$work/gofail" go test -v ./...
	cap gotest fail_json "$work/gofail" go test -json ./...
	cap gotest build_failed "$work/gobuild" go test ./...
	cap gotest build_failed_json "$work/gobuild" go test -json ./...
	cap gotest panic "$work/gopanic" go test ./...
	cap gotest big_plain "$work/gobig" go test ./...
	# Runs that ran no test: flowdeck must not count them as passing.
	cap gotest no_tests_plain "$work/gopass" go test -run XNothing ./...
	cap gotest no_tests_verbose "$work/gopass" go test -v -run XNothing ./...
	cap gotest no_tests_json "$work/gopass" go test -json -run XNothing ./...
	cap gotest no_test_files "$work/gopass" go test ./notests
	cap gotest big_verbose "$work/gobig" go test -v ./...
	cap gobuild pass "$work/gopass" go build ./...
	cap gobuild fail "$work/gobuild" go build ./...
	cap govet pass "$work/gopass" go vet ./...
	cap govet fail "$work/govet" go vet ./...
	if have golangci-lint; then
		cat >"$work/gofail/broken/lint.go" <<'EOF'
package broken

import (
	"os"
	"strings"
)

func Write(path string) {
	os.WriteFile(path, nil, 0o644)
}

func Ineff(s string) int {
	n := len(s)
	n = 2
	if strings.Index(s, "x") != -1 {
		return n
	}
	return 3
}

func Close(f *os.File) {
	f.Close()
}
EOF
		cap golangcilint pass "$work/gopass" golangci-lint run ./...
		cap golangcilint fail "$work/gofail" golangci-lint run ./...
		rm -f "$work/gofail/broken/lint.go"
	else
		skip golangci-lint "not on PATH (go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0)"
	fi
}

# ---------------------------------------------------------------- Rust
capture_rust() {
	have cargo || { skip cargo "cargo not found"; return; }
	local r=$work/rs
	rm -rf "$work"/{rs,rsfail,rsbuild,rswarn}
	mkdir -p "$r/src" "$r/tests"
	printf '[package]\nname = "rs"\nversion = "0.1.0"\nedition = "2024"\n\n[dependencies]\n' >"$r/Cargo.toml"
	cat >"$r/src/lib.rs" <<'EOF'
pub fn add(a: u64, b: u64) -> u64 {
    a + b
}

pub fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn clamps_low() {
        assert_eq!(clamp(-5, 0, 10), 0);
    }

    #[test]
    fn clamps_high() {
        assert_eq!(clamp(50, 0, 10), 10);
    }

    #[test]
    #[ignore]
    fn slow_property() {
        assert_eq!(add(1, 1), 2);
    }
}
EOF
	printf '#[test]\nfn integration_add() {\n    assert_eq!(rs::add(40, 2), 42);\n}\n' >"$r/tests/integration.rs"
	cp -r "$r" "$work/rsfail"
	sed -i 's/assert_eq!(clamp(50, 0, 10), 10);/assert_eq!(clamp(50, 0, 10), 11);/; s/assert_eq!(add(2, 2), 4);/assert_eq!(add(2, 2), 5, "math is broken");/' "$work/rsfail/src/lib.rs"
	cp -r "$r" "$work/rsbuild"
	sed -i 's/^    a + b$/    a + c/; s/^pub fn clamp/fn unused_helper() {}\n\npub fn clamp/' "$work/rsbuild/src/lib.rs"
	cp -r "$r" "$work/rswarn"
	sed -i 's/^pub fn clamp/fn unused_helper() {}\n\npub fn clamp/' "$work/rswarn/src/lib.rs"
	cap cargotest pass "$r" cargo test
	cap cargotest fail "$work/rsfail" cargo test
	cap cargotest no_tests "$r" cargo test nothing_matches
	cap cargobuild fail "$work/rsbuild" cargo build
	rm -rf "$r/target"
	cap cargobuild pass "$r" cargo build
	cap cargobuild warnings "$work/rswarn" cargo build
}

# ---------------------------------------------------------------- Python
capture_python() {
	local py=/usr/bin/python3
	if ! $py -c 'import pytest' 2>/dev/null; then
		skip pytest "python3-pytest not installed (apt-get install -y python3-pytest)"
		return
	fi
	local p=$work/py
	rm -rf "$work"/{py,pyfail,pycol,mp}
	mkdir -p "$p"
	cat >"$p/mathx.py" <<'EOF'
def add(a, b):
    return a + b


def clamp(v, lo, hi):
    return max(lo, min(v, hi))
EOF
	cat >"$p/test_mathx.py" <<'EOF'
import sys

import pytest

from mathx import add, clamp


def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize("v,want", [(-1, 0), (5, 5), (11, 10)])
def test_clamp(v, want):
    assert clamp(v, 0, 10) == want


@pytest.mark.skipif(sys.platform == "linux", reason="not on linux")
def test_windows_only():
    assert False


def test_strings():
    assert "a" * 3 == "aaa"
EOF
	cat >"$p/test_unit.py" <<'EOF'
import unittest

from mathx import add, clamp


class TestMath(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)

    def test_clamp(self):
        self.assertEqual(clamp(20, 0, 10), 10)

    @unittest.skip("demonstrating skip")
    def test_skipped(self):
        self.fail("never")


if __name__ == "__main__":
    unittest.main()
EOF
	cp -r "$p" "$work/pyfail"
	sed -i 's/assert add(2, 3) == 5/assert add(2, 3) == 6/; s/(11, 10)\]/(11, 10), (20, 11)]/' "$work/pyfail/test_mathx.py"
	sed -i 's/self.assertEqual(clamp(20, 0, 10), 10)/self.assertEqual(clamp(20, 0, 10), 11)/; s/    @unittest.skip/    def test_error(self):\n        raise RuntimeError("boom")\n\n    @unittest.skip/' "$work/pyfail/test_unit.py"
	cp -r "$p" "$work/pycol"
	printf 'def test_broken(:\n    pass\n' >"$work/pycol/test_syntax.py"
	(
		export PATH=/usr/bin:$PATH
		cap pytest pass "$p" pytest
		cap pytest fail "$work/pyfail" pytest
		cap pytest pass_verbose "$p" pytest -v
		cap pytest fail_quiet "$work/pyfail" python3 -m pytest -q
		cap pytest collect_error "$work/pycol" pytest
		cap pytest no_tests_deselected "$p" pytest -k nothing_matches
		mkdir -p "$work/pyempty" && printf 'def helper():\n    return 1\n' >"$work/pyempty/util.py"
		cap pytest no_tests_empty "$work/pyempty" pytest
		cap unittest no_tests "$work/pyempty" python3 -m unittest
		cap unittest pass "$p" python3 -m unittest
		cap unittest fail "$work/pyfail" python3 -m unittest
		cap unittest pass_verbose "$p" python3 -m unittest -v test_unit
	)
	if have mypy; then
		mkdir -p "$work/mp"
		printf 'def area(w: int, h: int) -> int:\n    return w * h\n\n\nprint(area(2, 3))\n' >"$work/mp/good.py"
		cat >"$work/mp/bad.py" <<'EOF'
from typing import Optional


def area(w: int, h: int) -> int:
    return w * h


def name(n: Optional[str]) -> str:
    return n.upper()


x: str = area(2, 3)
area("2", 3)
EOF
		cap mypy pass "$work/mp" mypy good.py
		cap mypy fail "$work/mp" mypy bad.py
	else
		skip mypy "not installed (apt-get install -y mypy)"
	fi
}

# ---------------------------------------------------------------- Node
capture_node() {
	have npm || { skip node "npm not found"; return; }
	local n=$work/node
	mkdir -p "$n"
	if [ ! -x "$n/node_modules/.bin/vitest" ]; then
		(cd "$n" && npm init -y >/dev/null && npm install --no-audit --no-fund jest vitest eslint @eslint/js typescript pnpm yarn@1 >/dev/null 2>&1) ||
			{ skip node "npm install failed"; return; }
	fi
	rm -rf "$n"/{jp,jf,js,vp,vf,np,nf,lint,tsp,tsf}
	mkdir -p "$n"/{jp,jf,vp,vf,np,nf,lint/good,lint/bad,tsp/src,tsf/src}
	cat >"$n/jp/sum.js" <<'EOF'
function sum(a, b) {
  return a + b;
}
function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(v, hi));
}
module.exports = { sum, clamp };
EOF
	cat >"$n/jp/sum.test.js" <<'EOF'
const { sum, clamp } = require('./sum');

describe('sum', () => {
  test('adds 1 + 2', () => {
    expect(sum(1, 2)).toBe(3);
  });
  test('adds negatives', () => {
    expect(sum(-1, -2)).toBe(-3);
  });
  test.skip('adds bigints', () => {
    expect(sum(1n, 2n)).toBe(3n);
  });
});

describe('clamp', () => {
  test('clamps high', () => {
    expect(clamp(20, 0, 10)).toBe(10);
  });
  test.todo('clamps NaN');
});
EOF
	printf "test('shouts', () => {\n  expect('hi'.toUpperCase() + '!').toBe('HI!');\n});\n" >"$n/jp/str.test.js"
	printf '{ "name": "jest-demo", "version": "1.0.0", "private": true, "scripts": { "test": "jest" } }\n' >"$n/jp/package.json"
	cp "$n"/jp/*.js "$n/jf/"
	sed -i "s/expect(clamp(20, 0, 10)).toBe(10);/expect(clamp(20, 0, 10)).toBe(11);/; s/expect(sum(-1, -2)).toBe(-3);/expect(sum(-1, -2)).toEqual({ total: -3 });/" "$n/jf/sum.test.js"
	sed 's/jest-demo/jest-fail/' "$n/jp/package.json" >"$n/jf/package.json"
	mkdir -p "$n/js" && cp "$n"/jp/* "$n/js/"
	printf "test('x', () => {\n  expect(1).toBe(1)\n\n" >"$n/js/broken.test.js"
	cat >"$n/vp/mathx.js" <<'EOF'
export const add = (a, b) => a + b;
export const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));
EOF
	cat >"$n/vp/mathx.test.js" <<'EOF'
import { describe, it, expect } from 'vitest';
import { add, clamp } from './mathx.js';

describe('add', () => {
  it('adds', () => {
    expect(add(2, 2)).toBe(4);
  });
  it.skip('adds strings', () => {
    expect(add('a', 'b')).toBe('ab');
  });
});

describe('clamp', () => {
  it('clamps low', () => {
    expect(clamp(-3, 0, 10)).toBe(0);
  });
  it('clamps high', () => {
    expect(clamp(30, 0, 10)).toBe(10);
  });
});
EOF
	printf "import { test, expect } from 'vitest';\n\ntest('upper', () => {\n  expect('a'.toUpperCase()).toBe('A');\n});\n" >"$n/vp/other.test.js"
	printf '{ "name": "vitest-demo", "version": "1.0.0", "private": true, "type": "module", "scripts": { "test": "vitest run", "check": "vitest run" } }\n' >"$n/vp/package.json"
	cp "$n"/vp/*.js "$n/vf/"
	sed -i "s/expect(clamp(30, 0, 10)).toBe(10);/expect(clamp(30, 0, 10)).toBe(12);/; s/expect(add(2, 2)).toBe(4);/expect(add(2, 2)).toBe(5);/" "$n/vf/mathx.test.js"
	sed 's/vitest-demo/vitest-fail/' "$n/vp/package.json" >"$n/vf/package.json"
	cat >"$n/np/mathx.test.mjs" <<'EOF'
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));

describe('clamp', () => {
  test('low', () => assert.equal(clamp(-1, 0, 5), 0));
  test('high', () => assert.equal(clamp(9, 0, 5), 5));
  test('inside', () => assert.equal(clamp(3, 0, 5), 3));
});

test('skipped one', { skip: 'not ready' }, () => {});
test('todo one', { todo: true }, () => {});
test('sum', () => assert.equal(1 + 1, 2));
EOF
	printf '{ "name": "node-test-demo", "version": "1.0.0", "private": true, "type": "module", "scripts": { "test": "node --test" } }\n' >"$n/np/package.json"
	cp "$n/np/mathx.test.mjs" "$n/nf/"
	sed -i "s/test('high', () => assert.equal(clamp(9, 0, 5), 5));/test('high', () => assert.equal(clamp(9, 0, 5), 6));/; s/test('sum', () => assert.equal(1 + 1, 2));/test('sum', () => assert.deepEqual({ a: 1 }, { a: 2 }));/" "$n/nf/mathx.test.mjs"
	sed 's/node-test-demo/node-test-fail/' "$n/np/package.json" >"$n/nf/package.json"
	cat >"$n/lint/eslint.config.mjs" <<'EOF'
import js from '@eslint/js';

export default [
  js.configs.recommended,
  { languageOptions: { globals: { console: 'readonly' } }, rules: { 'no-unused-vars': 'warn', eqeqeq: 'error' } },
];
EOF
	printf 'export function greet(name) {\n  console.log(`hello ${name}`);\n}\n' >"$n/lint/good/ok.js"
	cat >"$n/lint/bad/app.js" <<'EOF'
export function check(a, b) {
  const unused = 1;
  if (a == b) {
    return undefinedThing;
  }
  debugger;
  return a;
}
EOF
	printf 'export function u(x) {\n  let y = 2;\n  return x;\n}\n' >"$n/lint/bad/util.js"
	printf '{ "name": "lint-demo", "version": "1.0.0", "private": true, "type": "module", "scripts": { "lint": "eslint bad" } }\n' >"$n/lint/package.json"
	printf '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "module": "nodenext" }, "include": ["src"] }\n' | tee "$n/tsp/tsconfig.json" >"$n/tsf/tsconfig.json"
	printf 'export function area(w: number, h: number): number {\n  return w * h;\n}\n' >"$n/tsp/src/index.ts"
	printf 'export function area(w: number, h: number): number {\n  return w * h;\n}\n\nconst s: string = area(2, 3);\narea("2", 3);\nexport const x = s;\n' >"$n/tsf/src/index.ts"
	printf 'export function f(o: { a: number }) {\n  return o.b;\n}\n' >"$n/tsf/src/other.ts"
	printf '{ "name": "ts-fail", "version": "1.0.0", "private": true, "scripts": { "build": "tsc -p ." } }\n' >"$n/tsf/package.json"
	(
		export PATH=$n/node_modules/.bin:$PATH
		cap jest pass "$n/jp" jest
		cap jest fail "$n/jf" jest
		cap jest suite_error "$n/js" jest
		cap vitest pass "$n/vp" vitest run
		cap vitest fail "$n/vf" vitest run
		cap jest no_tests "$n/jp" jest nothing_matches
		cap jest no_tests_pass "$n/jp" jest --passWithNoTests nothing_matches
		cap vitest no_tests "$n/vp" vitest run nothing_matches
		cap nodetest no_tests "$n/np" node --test --test-name-pattern=nothing_matches
		cap npm test_jest_no_tests "$n/jp" npm test -- nothing_matches
		cap nodetest pass "$n/np" node --test
		cap nodetest fail "$n/nf" node --test
		cap eslint pass "$n/lint" eslint good
		cap eslint fail "$n/lint" eslint bad
		cap tsc pass "$n/tsp" tsc -p .
		cap tsc fail "$n/tsf" tsc -p .
		cap npm test_jest_pass "$n/jp" npm test
		cap npm test_jest_fail "$n/jf" npm test
		cap npm run_vitest_pass "$n/vp" npm run check
		cap npm run_tsc_fail "$n/tsf" npm run build
		cap pnpm test_node_fail "$n/nf" pnpm test
		cap pnpm test_vitest_pass "$n/vp" pnpm test
		cap yarn test_jest_fail "$n/jf" yarn test
		cap yarn run_lint_fail "$n/lint" yarn run lint
		cap yarn test_node_pass "$n/np" yarn test
	)
}

# ---------------------------------------------------------------- mocha
capture_mocha() {
	have npm || { skip mocha "npm not found"; return; }
	local n=$work/node
	mkdir -p "$n"
	if [ ! -x "$n/node_modules/.bin/mocha" ]; then
		(cd "$n" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund mocha >/dev/null 2>&1) ||
			{ skip mocha "npm install failed"; return; }
	fi
	rm -rf "$n"/{mp,mf}
	mkdir -p "$n"/{mp,mf}/test
	cat >"$n/mp/test/sum.spec.js" <<'EOF'
const assert = require('node:assert');
const sum = (a, b) => a + b;

describe('sum', () => {
  it('adds 1 + 2', () => assert.strictEqual(sum(1, 2), 3));
  it('adds negatives', () => assert.strictEqual(sum(-1, -2), -3));
  it.skip('adds bigints', () => assert.strictEqual(sum(1n, 2n), 3n));
});

describe('clamp', () => {
  it('clamps high', () => assert.strictEqual(Math.min(20, 10), 10));
});
EOF
	sed 's/sum(1, 2), 3/sum(1, 2), 4/; s/Math.min(20, 10), 10/Math.min(20, 10), 11/' "$n/mp/test/sum.spec.js" >"$n/mf/test/sum.spec.js"
	printf '{ "name": "mocha-demo", "version": "1.0.0", "private": true, "scripts": { "test": "mocha" } }\n' | tee "$n/mp/package.json" >"$n/mf/package.json"
	(
		export PATH=$n/node_modules/.bin:$PATH
		cap mocha pass "$n/mp" mocha
		cap mocha fail "$n/mf" mocha
		cap mocha no_tests "$n/mp" mocha --grep nothing_matches
		cap npm test_mocha_fail "$n/mf" npm test
	)
}

# ---------------------------------------------------------------- make
capture_make() {
	have make && have cc || { skip make "make or cc not found"; return; }
	local m=$work/mk
	rm -rf "$m" && mkdir -p "$m"
	printf '#include <stdio.h>\n\nint main(void) {\n\tint unused;\n\tprintf("hello\\n");\n\treturn 0;\n}\n' >"$m/hello.c"
	printf '#include <stdio.h>\n\nint main(void) {\n\tprintf("%%d\\n", missing);\n\treturn 0\n}\n' >"$m/bad.c"
	cat >"$m/Makefile" <<'EOF'
CFLAGS = -Wall -O2

all: hello

hello: hello.c
	$(CC) $(CFLAGS) -o $@ $<

bad: bad.c
	$(CC) $(CFLAGS) -o $@ $<

test:
	cd ../gopass && go test ./...

test-fail:
	cd ../gofail && go test ./...

clean:
	rm -f hello bad

.PHONY: all test test-fail clean
EOF
	cap make build_pass "$m" make
	cap make build_fail "$m" make bad
	if [ -d "$work/gopass" ]; then
		cap make test_pass "$m" make test
		cap make test_fail "$m" make test-fail
	fi
}

# CAPTURE_ONLY="node mocha" captures only those parts.
for part in ${CAPTURE_ONLY:-go rust python node mocha make}; do
	"capture_$part"
done
skip ruff "not installable here: testdata/outputs/ruff is written by hand (see its README.md)"
echo "outputs in $out, projects in $work"
