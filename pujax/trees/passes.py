"""Passes over the entries of a growth (:mod:`pujax.trees.grow`): the per-(feature slot, node, bin) histograms, the
(min, max) codes and the left counts of the Extra-Trees thresholds, and the routing of every entry to its child
(with the stable compaction of the dropped entries), each a loop over chunks of ``Caps.C_e`` entries of the prefix in
use; and the small array helpers the growth shares.

Every pass reads the entries ``(rows, nid)`` of the state; entries of dropped nodes carry ``nid = Caps.N`` and are
skipped. Accumulators are int32: histogram cells hold ``count + (count of s = 1) << shift`` (one packed cell) or the
two counts in a last axis of 2 (``shift = 0``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["dslice", "dupdate", "cdiv", "incl_cumsum", "excl_cumsum", "pack_counts", "hist_pass", "range_pass",
           "left_pass", "route_pass"]


def dslice(a, start, size):
    """``a[start:start + size]`` along axis 0 for a traced ``start``."""
    return jax.lax.dynamic_slice_in_dim(a, start, size, axis=0)


def dupdate(a, start, value):
    """``a[start:start + len(value)] = value`` along axis 0 for a traced ``start``."""
    return jax.lax.dynamic_update_slice_in_dim(a, value.astype(a.dtype), start, axis=0)


def cdiv(a, b):
    return (a + b - 1) // b


def incl_cumsum(x):
    """Inclusive prefix sum along axis 0 by a log-depth scan (XLA:CPU lowers ``cumsum`` to an O(n^2) window)."""
    return jax.lax.associative_scan(jnp.add, x, axis=0)


def pack_counts(s_rows, shift):
    """Histogram increment of an entry: ``1 + s << shift`` (one packed cell), or ``(1, s)`` (two channels)."""
    s_rows = s_rows.astype(jnp.int32)
    if shift > 0:
        return (1 + (s_rows << shift))[:, None]
    return jnp.stack([jnp.ones_like(s_rows), s_rows], axis=1)


def excl_cumsum(x):
    x = x.astype(jnp.int32)
    return incl_cumsum(x) - x


def _chunk(rows_buf, nid_buf, n_ent, i, size):
    """Chunk ``i`` of the entries: offset, rows, nid, and which entries are in use (and not dropped)."""
    o = i * size
    rows, nid = dslice(rows_buf, o, size), dslice(nid_buf, o, size)
    valid = (o + jnp.arange(size, dtype=jnp.int32)) < n_ent
    return o, rows, nid, valid


def _entry_loop(state, caps, use, body, init):
    """``body(rows, nid, live, acc) -> acc`` over the chunks of entries in use (none unless ``use``)."""
    N, n_ent = caps.N, state.n_ent[0]

    def step(i, acc):
        _, rows, nid, valid = _chunk(state.rows, state.nid, n_ent, i, caps.C_e)
        live = valid & (nid < N)
        return body(rows, jnp.where(live, nid, 0), live, acc)

    return jax.lax.fori_loop(0, jnp.where(use, cdiv(n_ent, caps.C_e), 0), step, init)


def _codes(data, caps, feats, nid, j, rows):
    """Codes of every entry's node's sampled feature in slot ``j``."""
    return data.codes_t[feats[nid, j] * caps.n + rows].astype(jnp.int32)


def hist_pass(state, data, cfg, caps, base, use):
    """Add the per-(feature slot, node, bin) histograms of the entries of nodes ``base .. base + NH - 1``."""
    K, B, NH = cfg.n_slots, cfg.n_bins, caps.NH
    dead = K * NH * B

    def body(rows, nid, live, hist):
        local = nid - base
        live = live & (local >= 0) & (local < NH)
        local = jnp.where(live, local, 0)
        inc = pack_counts(data.s[rows], cfg.shift)
        inc = inc[:, 0] if cfg.shift > 0 else inc

        def slot(j, hist):
            cell = jnp.where(live, (j * NH + local) * B + _codes(data, caps, state.feats, nid, j, rows), dead)
            return hist.at[cell].add(inc, mode="drop")

        return jax.lax.fori_loop(0, K, slot, hist)

    return _entry_loop(state, caps, use, body, state.hist)


def range_pass(state, data, cfg, caps, use):
    """Max-accumulate (code, 255 - code) of every sampled feature per node into ``mm`` (N * K, 2)."""
    K, dead = cfg.n_slots, caps.N * cfg.n_slots

    def body(rows, nid, live, mm):
        def slot(j, mm):
            cx = _codes(data, caps, state.feats, nid, j, rows)
            return mm.at[jnp.where(live, nid * K + j, dead)].max(jnp.stack([cx, 255 - cx], 1), mode="drop")

        return jax.lax.fori_loop(0, K, slot, mm)

    return _entry_loop(state, caps, use, body, state.mm)


def left_pass(state, data, cfg, caps, use):
    """Add the counts (all; s = 1) of the entries with code <= threshold per (node, slot, threshold) into ``lc``."""
    K, dead = cfg.n_slots, caps.N * cfg.n_slots

    def body(rows, nid, live, lc):
        inc = pack_counts(data.s[rows], cfg.shift)

        def slot(j, lc):
            cx = _codes(data, caps, state.feats, nid, j, rows)
            left = (cx[:, None] <= state.thr[nid, j]).astype(jnp.int32)  # (C, T)
            vals = left * inc[:, :1] if cfg.shift > 0 else jnp.concatenate([left, left * inc[:, 1:]], 1)
            return lc.at[jnp.where(live, nid * K + j, dead)].add(vals, mode="drop")

        return jax.lax.fori_loop(0, K, slot, lc)

    return _entry_loop(state, caps, use, body, state.lc)


def route_pass(state, data, caps, compact):
    """Send every entry to its child (``state.route``), dropped when the child is a leaf; with ``compact`` the live
    entries are moved to the front in their order (in place: chunk ``i`` is read before anything at or after its
    start is written). Returns ``(rows, nid, n_ent)``."""
    N, C, n_ent = caps.N, caps.C_e, state.n_ent[0]

    def new_nid(rows, nid, valid):
        live = valid & (nid < N)
        rt = state.route[jnp.where(live, nid, 0)]
        code = data.codes_t[rt[:, 0] * caps.n + rows].astype(jnp.int32)
        return jnp.where(live, jnp.where(code > rt[:, 1], rt[:, 3], rt[:, 2]), N)

    def plain(i, nid_buf):
        o, rows, nid, valid = _chunk(state.rows, nid_buf, n_ent, i, C)
        return dupdate(nid_buf, o, new_nid(rows, nid, valid))

    def packed(i, carry):
        rows_buf, nid_buf, off = carry
        _, rows, nid, valid = _chunk(rows_buf, nid_buf, n_ent, i, C)
        new = new_nid(rows, nid, valid)
        live = new < N
        pos = jnp.where(live, off + excl_cumsum(live), caps.M)
        rows_buf = rows_buf.at[pos].set(rows, mode="drop", unique_indices=True)
        nid_buf = nid_buf.at[pos].set(new, mode="drop", unique_indices=True)
        return rows_buf, nid_buf, off + jnp.sum(live, dtype=jnp.int32)

    n_chunks = cdiv(n_ent, C)
    nid = jax.lax.fori_loop(0, jnp.where(compact, 0, n_chunks), plain, state.nid)
    rows, nid, kept = jax.lax.fori_loop(0, jnp.where(compact, n_chunks, 0), packed,
                                        (state.rows, nid, jnp.int32(0)))
    return rows, nid, jnp.where(compact, kept, n_ent)[None]
