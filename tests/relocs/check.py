#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py FILE[:NAME,...]...: the call-site records of each linked
module (common/descriptor.h) and the relocations the dynamic linker
applies to them:

  - none to a record's site field, which the plugins always store as a
    distance (flag MV_SITE_SITE_RELATIVE, which must be set);
  - none to the callee field of a record that stores it as a distance
    (flag MV_SITE_CALLEE_RELATIVE);
  - no PC-relative one anywhere: the dynamic linker applies none;
  - a callee stored as a distance is the generic of a function record
    or the address of a switch record of the same file;
  - every record whose callee is one of the file's NAMEs (functions the
    static link resolves: static, hidden) stores it as a distance, and
    there is at least one such record for each NAME.

A file with packed relative relocations (.relr.dyn) or REL ones is
refused: this check does not read them."""
import os
import struct
import sys

SITE_SIZE, FN_SIZE, VAR_SIZE = 24, 40, 32
SITE_RELATIVE, CALLEE_RELATIVE = 0x2, 0x4
SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_DYNSYM, SHT_RELR = 2, 4, 9, 11, 19
SHF_ALLOC = 0x2
# machine: (relative relocation, PC-relative 64-bit relocations)
MACHINES = {62: (8, {2, 24}), 183: (1027, {260, 261})}


def check(path, relative_names):
    with open(path, "rb") as f:
        d = f.read()
    if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
        return [f"{path}: not a little-endian ELF64 file"]
    machine = struct.unpack_from("<H", d, 18)[0]
    if machine not in MACHINES:
        return [f"{path}: machine {machine} unknown"]
    rel_relative, pc_relative = MACHINES[machine]
    shoff, = struct.unpack_from("<Q", d, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 58)
    if not shoff or not shnum or shstrndx >= shnum:
        return [f"{path}: no section headers"]
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]

    def name(off, table=names):
        return d[table + off:d.index(b"\0", table + off)].decode()

    by_name = {name(s[0]): s for s in secs}
    if "__multiverse_site" not in by_name:
        return [f"{path}: no __multiverse_site section"]
    if any(s[1] == SHT_RELR for s in secs):
        return [f"{path}: packed relative relocations (.relr.dyn): not checked"]
    if any(s[1] == SHT_REL and s[2] & SHF_ALLOC for s in secs):
        return [f"{path}: REL relocations: not checked"]
    site = by_name["__multiverse_site"]
    start, off, size = site[3], site[4], site[5]
    relocs = {}
    for s in secs:
        if s[1] == SHT_RELA and s[2] & SHF_ALLOC:
            for at in range(s[4], s[4] + s[5], 24):
                where, info, addend = struct.unpack_from("<QQq", d, at)
                relocs.setdefault(where, []).append((info & 0xffffffff, addend))
    symbols = {}
    for s in secs:
        if s[1] in (SHT_SYMTAB, SHT_DYNSYM):
            strtab = secs[s[6]][4]
            for at in range(s[4], s[4] + s[5], 24):
                st_name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", d, at)
                if shndx:
                    symbols.setdefault(name(st_name, strtab), value)

    def absolute(at, raw):
        """The address an absolute field at at holds: the static link's,
        or a relative relocation's; None for another module's symbol."""
        rel = relocs.get(at, [])
        if not rel:
            return raw
        return rel[0][1] if rel[0][0] == rel_relative else None

    def addresses(section, size):
        """The first field of each record, where this file gives it."""
        if section not in by_name:
            return set()
        s = by_name[section]
        return {absolute(s[3] + i * size, struct.unpack_from("<Q", d, s[4] + i * size)[0])
                for i in range(s[5] // size)} - {None}

    known = addresses("__multiverse_fn", FN_SIZE) | addresses("__multiverse_var", VAR_SIZE)
    errors, found = [], {n: 0 for n in relative_names}
    wanted = {}
    for n in relative_names:
        if n not in symbols:
            errors.append(f"{path}: no symbol {n}")
        else:
            wanted[symbols[n]] = n
    for i in range(size // SITE_SIZE):
        at = start + i * SITE_SIZE
        callee_raw, = struct.unpack_from("<q", d, off + i * SITE_SIZE + 8)
        flags, = struct.unpack_from("<I", d, off + i * SITE_SIZE + 20)
        rec = f"{path}: record {i}"
        for kind, _ in relocs.get(at, []):
            errors.append(f"{rec}: its site field has a dynamic relocation (type {kind})")
        if not flags & SITE_RELATIVE:
            errors.append(f"{rec}: its site is not stored as a distance")
        callee_relocs = relocs.get(at + 8, [])
        for kind, _ in callee_relocs:
            if kind in pc_relative:
                errors.append(f"{rec}: a PC-relative dynamic relocation (type {kind})")
            elif flags & CALLEE_RELATIVE:
                errors.append(f"{rec}: its callee is a distance and relocated (type {kind})")
        if flags & CALLEE_RELATIVE:
            callee = at + 8 + callee_raw
            if callee not in known:
                errors.append(f"{rec}: its callee {callee:#x}, a distance, is no function's "
                              "generic and no switch of this file")
        else:
            callee = absolute(at + 8, callee_raw & (2**64 - 1))
        if callee in wanted:
            if flags & CALLEE_RELATIVE:
                found[wanted[callee]] += 1
            else:
                errors.append(f"{rec}: its callee {wanted[callee]} is not a distance")
    for n, k in found.items():
        if n in symbols and not k:
            errors.append(f"{path}: no record calls {n} by a distance")
    print(f"{path}: {size // SITE_SIZE} records; distances to "
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
