#!/usr/bin/env python3
"""Writes broken inputs for fmha-elf-manifest's error tests.

usage: make_bad_elf.py elf32 OUT            32-bit ELF header only
       make_bad_elf.py x86-64 OUT           64-bit ELF header, EM_X86_64
       make_bad_elf.py truncate IN OUT N    the first N bytes of IN
       make_bad_elf.py rename IN OUT OLD NEW
                                            IN with the msgpack string OLD
                                            renamed NEW (same length)
       make_bad_elf.py bad-msgpack IN OUT   IN with the fixstr header of
                                            "amdhsa.target" set to 0xc1,
                                            a byte msgpack never uses
"""
import struct
import sys


def elf_header(ei_class, machine):
    ident = bytes([0x7F, ord("E"), ord("L"), ord("F"), ei_class, 1, 1]) + bytes(9)
    # e_type=ET_DYN, e_machine, e_version, e_entry, e_phoff, e_shoff,
    # e_flags, e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
    return ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, 0, 0, 64,
                               0, 0, 0, 0, 0)


def replace_once(data, old, new):
    assert len(old) == len(new) and data.count(old) == 1, (old, data.count(old))
    return data.replace(old, new)


def msgpack_str(text):
    assert len(text) < 32
    return bytes([0xA0 | len(text)]) + text.encode()


def main():
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "elf32":
        data = elf_header(1, 224)[:52]
    elif kind == "x86-64":
        data = elf_header(2, 62)
    else:
        data = open(args.pop(0), "rb").read()
        if kind == "truncate":
            data = data[: int(args[1])]
        elif kind == "rename":
            data = replace_once(data, msgpack_str(args[1]), msgpack_str(args[2]))
        elif kind == "bad-msgpack":
            old = msgpack_str("amdhsa.target")
            data = replace_once(data, old, b"\xc1" + old[1:])
        else:
            sys.exit(f"unknown kind {kind}")
    open(args[0], "wb").write(data)


if __name__ == "__main__":
    main()
