#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (the T1 and T4 schemas in tests/schemas).

usage: validate_schema.py SCHEMA FILE...   exit 0 when every file is valid, 1 otherwise,
2 when the schema or a file cannot be read. Needs python3-jsonschema (scripts/setup-deps).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate_schema.py: python3-jsonschema is missing (run scripts/setup-deps)", file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 2
    bad = 0
    for path in argv[2:]:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(root)"
            print(f"{path}: {where}: {err.message}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
