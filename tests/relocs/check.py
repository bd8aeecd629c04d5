#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py FILE[:NAME,...]...: the descriptor records of each linked
module (common/descriptor.h: switch, function, variant, guard and call
site records) and the relocations the dynamic linker applies to them.

Every address field is either a distance (its record's *_RELATIVE flag
says so) or absolute.  For each module:

  - the fields that name something of the record's own unit (a site,
    a name, an entry, a variant table, a body, a guard or relocation
    table) are distances;
  - no field that is a distance has a dynamic relocation, and no
    dynamic relocation in a record is PC-relative or falls outside an
    absolute address field;
  - a distance points into the file's allocated sections (0, a null
    pointer, only where the field may be null), and a callee's or
    guard's distance to a function's generic or a switch record of the
    same file;
  - an absolute field that is not null has a dynamic relocation in a
    shared object or PIE, and otherwise points into the file;
  - the generic of a function record and the address of a switch
    record that name one of the file's NAMEs (symbols the static link
    resolves: static, hidden) are distances, and so is at least one
    other field naming each NAME (a site's callee, a guard's switch:
    those may stay absolute, in the records of stubs and beside a
    guard that must).

A file with packed relative relocations (.relr.dyn) or REL ones is
refused: this check does not read them."""
import os
import struct
import sys

VAR_SIZE, FN_SIZE, VARIANT_SIZE, GUARD_SIZE, SITE_SIZE = 32, 40, 40, 24, 24
VAR_NAME_RELATIVE, VAR_ADDR_RELATIVE = 0x8, 0x10
FN_RELATIVE, FN_GENERIC_RELATIVE = 0x8, 0x10
VARIANT_RELATIVE, VARIANT_VARS_RELATIVE = 0x1, 0x2
SITE_RELATIVE, CALLEE_RELATIVE = 0x2, 0x4
SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_DYNSYM, SHT_RELR = 2, 4, 9, 11, 19
SHF_ALLOC = 0x2
# machine: (relative relocation, PC-relative 64-bit relocations)
MACHINES = {62: (8, {2, 24}), 183: (1027, {260, 261})}


class Module:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.d = d = f.read()
        self.path = path
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError("not a little-endian ELF64 file")
        machine = struct.unpack_from("<H", d, 18)[0]
        if machine not in MACHINES:
            raise ValueError(f"machine {machine} unknown")
        self.rel_relative, self.pc_relative = MACHINES[machine]
        self.shared = struct.unpack_from("<H", d, 16)[0] == 3     # ET_DYN: loaded anywhere
        shoff, = struct.unpack_from("<Q", d, 40)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 58)
        if not shoff or not shnum or shstrndx >= shnum:
            raise ValueError("no section headers")
        self.secs = secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
                            for i in range(shnum)]
        names = secs[shstrndx][4]
        self.by_name = {self.name(s[0], names): s for s in secs}
        if any(s[1] == SHT_RELR for s in secs):
            raise ValueError("packed relative relocations (.relr.dyn): not checked")
        if any(s[1] == SHT_REL and s[2] & SHF_ALLOC for s in secs):
            raise ValueError("REL relocations: not checked")
        self.relocs = {}
        for s in secs:
            if s[1] == SHT_RELA and s[2] & SHF_ALLOC:
                for at in range(s[4], s[4] + s[5], 24):
                    where, info, addend = struct.unpack_from("<QQq", d, at)
                    self.relocs.setdefault(where, []).append((info & 0xffffffff, addend))
        self.symbols = {}
        for s in secs:
            if s[1] in (SHT_SYMTAB, SHT_DYNSYM):
                for at in range(s[4], s[4] + s[5], 24):
                    st_name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", d, at)
                    if shndx:
                        self.symbols.setdefault(self.name(st_name, secs[s[6]][4]), value)

    def name(self, off, table):
        return self.d[table + off:self.d.index(b"\0", table + off)].decode()

    def mapped(self, vaddr):
        return any(s[2] & SHF_ALLOC and s[3] <= vaddr < s[3] + s[5] for s in self.secs)

    def read(self, fmt, vaddr):
        for s in self.secs:
            if s[2] & SHF_ALLOC and s[3] <= vaddr < s[3] + s[5] and s[1] != 8:   # not NOBITS
                return struct.unpack_from(fmt, self.d, s[4] + vaddr - s[3])
        raise ValueError(f"{vaddr:#x} is in no section of the file")

    def records(self, section, size):
        s = self.by_name.get(section)
        return [s[3] + i for i in range(0, s[5] - s[5] % size, size)] if s else []

    def address(self, at, relative):
        """What the field at at names: its target, or None for another
        module's symbol."""
        raw, = self.read("<q", at)
        if relative:
            return at + raw if raw else 0
        rel = self.relocs.get(at, [])
        if not rel:
            return raw & (2**64 - 1)
        return rel[0][1] if rel[0][0] == self.rel_relative else None


def check(path, wanted_names):
    try:
        m = Module(path)
    except ValueError as e:
        return [f"{path}: {e}"]
    if "__multiverse_site" not in m.by_name:
        return [f"{path}: no __multiverse_site section"]
    errors = []
    wanted = {}
    for n in wanted_names:
        if n not in m.symbols:
            errors.append(f"{path}: no symbol {n}")
        else:
            wanted[m.symbols[n]] = n
    found = {n: 0 for n in wanted_names}
    covered = set()         # the absolute address fields: the only relocated ones
    targets = []            # (record, field, target, is a distance, kind)

    def field(rec, at, relative, what, must_be_relative=False, target_kind=None,
              nullable=False):
        if not relative:
            covered.add(at)
        relocs = m.relocs.get(at, [])
        for kind, _ in relocs:
            if kind in m.pc_relative:
                errors.append(f"{rec}: {what}: a PC-relative dynamic relocation (type {kind})")
            elif relative:
                errors.append(f"{rec}: {what} is a distance and relocated (type {kind})")
        if must_be_relative and not relative:
            errors.append(f"{rec}: {what} is not stored as a distance")
        value = m.address(at, relative)
        if value == 0 and not nullable:
            errors.append(f"{rec}: {what} is null")
        elif relative and value and not m.mapped(value):
            errors.append(f"{rec}: {what}, a distance, points to {value:#x}, outside the file")
        elif not relative and value and not relocs and (m.shared or not m.mapped(value)):
            errors.append(f"{rec}: {what}, absolute, is {value:#x} " +
                          ("without a relocation" if m.shared else "outside the file"))
        if target_kind:
            targets.append((rec, what, value, relative, target_kind))
        return value

    vars_known, fns_known = set(), set()
    for at in m.records("__multiverse_var", VAR_SIZE):
        rec = f"{path}: switch record at {at:#x}"
        flags, = m.read("<I", at + 20)
        vars_known.add(field(rec, at, flags & VAR_ADDR_RELATIVE, "its address",
                             target_kind="switch"))
        field(rec, at + 8, flags & VAR_NAME_RELATIVE, "its name", True)
    variants, spans = [], []
    for at in m.records("__multiverse_fn", FN_SIZE):
        rec = f"{path}: function record at {at:#x}"
        n, flags = m.read("<II", at + 32)
        fns_known.add(field(rec, at, flags & FN_GENERIC_RELATIVE, "its generic",
                            target_kind="function"))
        for off, what in ((8, "its name"), (16, "its entry")):
            field(rec, at + off, flags & FN_RELATIVE, what, True)
        table = field(rec, at + 24, flags & FN_RELATIVE, "its variants", True)
        variants += [table + i * VARIANT_SIZE for i in range(n)] if table else []
    for at in sorted(set(variants)):
        rec = f"{path}: variant record at {at:#x}"
        n_guards, = m.read("<I", at + 16)
        flags, = m.read("<H", at + 38)
        field(rec, at, flags & VARIANT_RELATIVE, "its body", True)
        guards = field(rec, at + 8, flags & VARIANT_RELATIVE, "its guards", True,
                       nullable=True)
        field(rec, at + 24, flags & VARIANT_RELATIVE, "its relocations", True, nullable=True)
        for g in range(n_guards if guards else 0):
            field(rec, guards + g * GUARD_SIZE, flags & VARIANT_VARS_RELATIVE,
                  f"the switch of guard {g}", target_kind="guard")
            spans.append((guards + g * GUARD_SIZE, guards + g * GUARD_SIZE + 8))
    for i, at in enumerate(m.records("__multiverse_site", SITE_SIZE)):
        rec = f"{path}: site record {i}"
        flags, = m.read("<I", at + 20)
        field(rec, at, flags & SITE_RELATIVE, "its site", True)
        field(rec, at + 8, flags & CALLEE_RELATIVE, "its callee", target_kind="callee")
    for rec, what, value, relative, kind in targets:
        if relative and (kind == "callee" and value not in vars_known | fns_known or
                         kind == "guard" and value not in vars_known):
            errors.append(f"{rec}: {what}, a distance, is {value:#x}: no function's "
                          "generic and no switch of this file")
        if value in wanted:
            if relative:
                found[wanted[value]] += kind in ("callee", "guard")
            elif kind in ("function", "switch"):
                errors.append(f"{rec}: {what}, {wanted[value]}, is not a distance")
    spans += [(m.by_name[s][3], m.by_name[s][3] + m.by_name[s][5])
              for s in ("__multiverse_var", "__multiverse_fn", "__multiverse_site")
              if s in m.by_name]
    spans += [(v, v + VARIANT_SIZE) for v in variants]
    for where in sorted(m.relocs):
        if where not in covered and any(a <= where < b for a, b in spans):
            errors.append(f"{path}: a dynamic relocation at {where:#x}, in a record but "
                          "not in an absolute address field")
    for n, k in found.items():
        if n in m.symbols and not k:
            errors.append(f"{path}: no site or guard names {n} by a distance")
    absolute = sum(1 for at in covered if at in m.relocs)
    print(f"{path}: {len(m.records('__multiverse_var', VAR_SIZE))} switches, "
          f"{len(m.records('__multiverse_fn', FN_SIZE))} functions, "
          f"{len(set(variants))} variants, {len(m.records('__multiverse_site', SITE_SIZE))} "
          f"sites; {absolute} relocated fields; distances to "
          + (", ".join(f"{n} {k}" for n, k in found.items()) or "nothing asked"))
    return errors


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    errors = []
    for arg in sys.argv[1:]:
        path, sep, names = arg.rpartition(":")
        if not sep or os.path.exists(arg):
            path, names = arg, ""
        errors += check(path, [n for n in names.split(",") if n])
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
