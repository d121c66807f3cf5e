"""Loading an exported case and saving what the operator returned.

Shared by the run_*.py scripts that `fiacheck export` writes beside it
(docs/export.md).  A script hands run_cases() its interface's name and three
functions: how a .npy becomes the framework's device tensor, how the call is
made, how a returned tensor becomes a NumPy array.  Each case's out/ is
written as soon as its call returns, and before the call a status saying the
call did not finish, so a process that dies in one case loses nothing of the
others and leaves no case looking answered.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import traceback

import numpy as np


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def case_dirs(root, api):
    """The case directories of interface api under root (or root itself
    when it is one case's directory)."""
    if os.path.exists(os.path.join(root, "call.json")):
        call = read_json(os.path.join(root, "call.json"))
        if call.get("api") != api:
            raise SystemExit("%s: a case of %s, not %s"
                             % (root, call.get("api"), api))
        return [root]
    tsv = os.path.join(root, "cases.tsv")
    if not os.path.exists(tsv):
        raise SystemExit("%s: no cases.tsv and no call.json: not a "
                         "directory fiacheck export wrote" % root)
    dirs = []
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 2 and cols[1] == api:
                dirs.append(os.path.join(root, cols[0]))
    return dirs


def load_npy(case_dir, desc):
    """The .npy a tensor descriptor names, checked against its shape (int4:
    packed bytes, the last dimension halved)."""
    arr = np.load(os.path.join(case_dir, desc["tensor"]), allow_pickle=False)
    shape = list(desc["shape"])
    if desc["dtype"] == "int4" and shape:
        shape[-1] //= 2
    if list(arr.shape) != shape:
        raise ValueError("%s: shape %s, call.json says %s"
                         % (desc["tensor"], list(arr.shape), desc["shape"]))
    return arr


def bf16_bits_to_float32(bits):
    """bfloat16 bit patterns (uint16) as the float32 values they are."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float32_to_bf16_bits(values):
    """float32 values that are bfloat16 values (the operator's bfloat16
    output, widened exactly) as their bfloat16 bit patterns."""
    return (np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
            >> 16).astype(np.uint16)


def int4_bytes_to_int32(packed):
    """Packed int4 bytes (two a byte, low nibble first) as the int32 words
    that hold eight each: the same bytes, the last dimension a quarter."""
    if packed.shape[-1] % 4 != 0:
        raise ValueError("int4 passed as int32 needs the last dimension a "
                         "multiple of 8, it is %d" % (packed.shape[-1] * 2))
    return np.ascontiguousarray(packed).view("<i4")


def call_args(params, tensor):
    """Positional (query, key, value) and keyword arguments of a call whose
    parameters are in call.json's form (the interface's names): each tensor
    descriptor through tensor(descriptor), a list of tensors as a list,
    everything else as it is (None omitted: it is the default)."""
    def value(v):
        if isinstance(v, dict) and "tensor" in v:
            return tensor(v)
        if isinstance(v, dict) and "tensor_list" in v:
            return [value(t) for t in v["tensor_list"]]
        return v
    positional = [value(params[n]) for n in ("query", "key", "value")]
    keywords = {n: value(v) for n, v in params.items()
                if n not in ("query", "key", "value") and v is not None}
    return positional, keywords


def build_args(case_dir, params, make_tensor):
    """call_args for an exported case: each tensor is make_tensor(array,
    descriptor) of the .npy its descriptor names."""
    return call_args(params,
                     lambda d: make_tensor(load_npy(case_dir, d), d))


def aclnn_code(message):
    """The aclnn status a framework's error message carries, or None."""
    m = re.search(r"error ?code[^0-9]{0,20}([0-9]{6})", message, re.I)
    if m is None:
        m = re.search(r"(?<![0-9])([1-5]6[0-9]{4})(?![0-9])", message)
    return int(m.group(1)) if m else None


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def save_npy(path, arr):
    tmp = path + ".tmp.npy"
    np.save(tmp, arr, allow_pickle=False)
    os.replace(tmp, path)


def run_one(case_dir, call_fn, to_numpy, make_tensor, system):
    """One case: its call, its out/.  True when the call was accepted."""
    out = os.path.join(case_dir, "out")
    os.makedirs(out, exist_ok=True)
    for name in ("attention_out.npy", "softmax_lse.npy"):
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    status = dict(system)
    status.update(status="error", code=None,
                  message="the call did not return (the process died)")
    write_json(os.path.join(out, "status.json"), status)
    call = read_json(os.path.join(case_dir, "call.json"))
    try:
        args, kwargs = build_args(case_dir, call["params"], make_tensor)
    except Exception as e:  # the case's files, not the operator
        status.update(message="loading the case: %s: %s"
                      % (type(e).__name__, e), code=None)
        write_json(os.path.join(out, "status.json"), status)
        return False
    try:
        result = call_fn(args, kwargs)
    except Exception as e:
        message = "%s: %s" % (type(e).__name__, e)
        status.update(message=message, code=aclnn_code(message))
        write_json(os.path.join(out, "status.json"), status)
        return False
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    try:
        for i, name in enumerate(("attention_out", "softmax_lse")):
            want = call["outputs"].get(name)
            if want is not None and i < len(results):
                save_npy(os.path.join(out, name + ".npy"),
                         to_numpy(results[i], want["dtype"]))
    except Exception as e:
        status.update(message="saving the outputs: %s: %s"
                      % (type(e).__name__, e), code=None)
        write_json(os.path.join(out, "status.json"), status)
        return False
    status = dict(system)
    status["status"] = "ok"
    write_json(os.path.join(out, "status.json"), status)
    return True


def run_cases(api, call_fn, to_numpy, make_tensor, system, argv=None):
    """A script's main: every case of api under DIR, or --case DIR alone;
    --isolate runs each case in its own process (a crash of the framework
    then costs that case only), --resume skips cases already answered."""
    p = argparse.ArgumentParser(description="Calls the operator through %s "
                                "for cases fiacheck exported." % api)
    p.add_argument("dir", nargs="?", help="the export directory")
    p.add_argument("--case", help="one case directory")
    p.add_argument("--isolate", action="store_true",
                   help="each case in its own process")
    p.add_argument("--resume", action="store_true",
                   help="skip cases whose out/status.json says ok")
    a = p.parse_args(argv)
    if (a.dir is None) == (a.case is None):
        p.error("give the export directory or --case DIR")
    dirs = case_dirs(a.case or a.dir, api)
    accepted = failed = 0
    for d in dirs:
        done = os.path.join(d, "out", "status.json")
        if a.resume and os.path.exists(done) and \
                read_json(done).get("status") == "ok":
            continue
        if a.isolate:
            rc = subprocess.call([sys.executable, sys.argv[0], "--case", d])
            ok = rc == 0
            if rc < 0 or not os.path.exists(done):
                status = dict(system)
                status.update(status="error", code=None,
                              message="the process died (exit %d)" % rc)
                os.makedirs(os.path.dirname(done), exist_ok=True)
                write_json(done, status)
        else:
            try:
                ok = run_one(d, call_fn, to_numpy, make_tensor, system)
            except Exception:
                traceback.print_exc()
                ok = False
        accepted += ok
        failed += not ok
        print("%s: %s" % (d, "ok" if ok else "error"), flush=True)
    print("%d cases: %d accepted, %d refused or failed"
          % (len(dirs), accepted, failed))
    # one case alone: its exit status says how it went (--isolate reads it)
    return 0 if a.case is None or accepted == 1 else 1
