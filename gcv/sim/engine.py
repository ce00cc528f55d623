"""The reference simulation. docs/simulation.md is its specification; this is its proof.

Ordering and rounding rules that must never change without regenerating golden vectors
(and updating the C# and C++ ports in the same commit):

* One tick = the ten steps of docs/simulation.md section 5, in that order.
* Bullets live in parallel int64 arrays in creation order; removal is stable compaction
  (boolean mask), never swap-remove.
* Every shift is arithmetic (floor). Divisions only ever see non-negative operands.
* The run's SplitMix64 is drawn only by scatter emission (step 5, one draw per bullet in
  slot order) and bot decisions (step 6, one draw, plus one more on a mistake).
"""

from __future__ import annotations

import hashlib
from math import isqrt
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from gcv.contract.patterns import PATTERNS
from gcv.sim.fixed import ANGLE_MASK, SplitMix64, iatan2
from gcv.sim.players import expand_trace, player_label
from gcv.sim.schedule import phase_index_for
from gcv.sim.program import program_hash
from gcv.sim.telemetry import build_telemetry
from gcv.sim.trig import COS_TABLE, SIN_LIST, SIN_TABLE

DIAGONAL_Q16 = 46341  # round(65536 / sqrt(2))
# Bot candidate moves, in this order: stay, then counter-clockwise from +x; then the same
# nine focused. Ties go to the lowest index.
BOT_DIRS = ((0, 0), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
SIGNED = 1 << 63


def _signed64(u: int) -> int:
    return u - (1 << 64) if u >= SIGNED else u


@dataclass
class PhaseStats:
    phase_id: str
    start_tick: int | None = None
    end_tick: int | None = None
    bullets_spawned: int = 0
    player_hits: int = 0
    grazes: int = 0
    peak_alive_bullets: int = 0
    alive_tick_sum: int = 0
    ticks: int = 0


@dataclass
class Snapshot:
    """What the renderer needs of one tick (copies, so later ticks cannot change it)."""

    tick: int
    phase_index: int
    player_x: int
    player_y: int
    invulnerable: bool
    boss_health: int
    hit_this_tick: bool
    x: np.ndarray
    y: np.ndarray
    phase: np.ndarray


@dataclass
class RunResult:
    telemetry: dict[str, Any]
    snapshots: list[Snapshot] = field(default_factory=list)

def bot_horizons(look: int) -> tuple[int, int, int, int]:
    """The ticks ahead at which a bot judges each move: the next tick, a quarter, half and all of
    its lookahead (docs/simulation.md). Judging only half and all of it left an expert, whose
    lookahead is long, blind to the bullets of the next ticks in a dense fight (issue 29)."""
    return 1, max(1, look // 4), max(1, look // 2), look

class Simulation:
    """One fight: a program, a seed and a player. Owns its RNG (created in ``reset``)."""

    def __init__(self, program: dict[str, Any], player: dict[str, Any], *, known_program_hash: str | None = None) -> None:
        self.program = program
        # Hashed once per Simulation (a batch reuses one per player across its seeds); a caller
        # that has just verified the hash (engine_runners.python_sim) passes it in.
        self.program_hash = known_program_hash or program_hash(program)
        self.player_spec = player
        self.kind = player["kind"]
        pl, arena = program["player"], program["arena"]
        self.hw, self.hh = arena["half_width"], arena["half_height"]
        self.despawn_x, self.despawn_y = arena["despawn_x"], arena["despawn_y"]
        self.hit_r2 = pl["hit_radius"] ** 2
        self.graze_r2 = pl["graze_radius"] ** 2
        self.phases = program["phases"]
        self.boss_x, self.boss_y = program["boss"]["x"], program["boss"]["y"]
        self.fire_interval = pl["auto_fire_interval_ticks"]
        self.fire_damage = pl["auto_fire_damage"]
        self.boss_max_health = program["boss"]["max_health"]
        self._slot_arrays = [
            tuple(np.array([s[j] for s in ph["slots"]], dtype=np.int64) for j in range(3))
            for ph in self.phases
        ]
        if self.kind == "bot":
            skill = program["bot"]["skills"][player["skill"]]
            self.reaction = skill["reaction_ticks"]
            self.look = skill["lookahead_ticks"]
            self.mistake_threshold = skill["mistake_threshold"]
            self.clearance_cap = program["bot"]["clearance_cap"]
            self.home_shift = program["bot"]["home_shift"]
            steps_x, steps_y = [], []
            for focus in (0, 1):
                speed = pl["focus_speed"] if focus else pl["speed"]
                diag = (speed * DIAGONAL_Q16) >> 16
                for dx, dy in BOT_DIRS:
                    s = diag if dx and dy else speed
                    steps_x.append(dx * s)
                    steps_y.append(dy * s)
            self.bot_step_x = np.array(steps_x, dtype=np.int64)
            self.bot_step_y = np.array(steps_y, dtype=np.int64)
            # Bullets farther than this can never bring a candidate's clearance under the
            # cap, so leaving them out changes nothing (a pure speed-up, see the spec).
            vmax = max((abs(s[1]) for ph in self.phases for s in ph["slots"]), default=0)
            reach = isqrt(self.clearance_cap) + 1024 + (vmax + abs(pl["speed"])) * self.look
            self.bot_reach, self.bot_reach2 = reach, reach * reach
            self._bot_home_cache: dict[tuple[int, int], int] = {}
            # the next tick, a quarter, half and all of the lookahead (the last: the home penalty's)
            self.bot_horizons = np.array([[h] for h in bot_horizons(self.look)], dtype=np.int64)
            self.bot_reach_x = self.bot_step_x * self.bot_horizons  # (4, 18): where each move leads
            self.bot_reach_y = self.bot_step_y * self.bot_horizons
            self.home_x, self.home_y = pl["start_x"], pl["start_y"]
        if self.kind == "inputs":
            self.trace = expand_trace(player["trace"])
        # Collision skipping (exact): the gap between the player and any bullet closes by at
        # most `closure` per tick, so after a check with minimum distance d the next
        # (d - R - 1) // closure ticks cannot touch or graze. R bounds both radii.
        vmax = max((abs(sl[1]) for ph in self.phases for sl in ph["slots"]), default=0)
        if self.kind == "scripted":
            sc = program["scripted"]
            pmax = sum((amp * (7 * ((rate >> 16) + 1) + 2) >> 16) + 2
                       for amp, rate in ((sc["amp_x"], sc["rate_x"]), (sc["amp_y"], sc["rate_y"])))
        else:
            pmax = max(abs(pl["speed"]), abs(pl["focus_speed"])) + 2
        self.player_step_max = pmax
        self.closure = vmax + (vmax >> 15) + 2 + pmax
        self.radius_bound = isqrt(max(self.hit_r2, self.graze_r2)) + 1
        self.seed: int | None = None

    # ------------------------------------------------------------------ lifecycle
    def reset(self, *, seed: int) -> None:
        if not 0 <= seed < SIGNED:
            raise ValueError(f"seed {seed} out of range; allowed 0..{SIGNED - 1}")
        prog, pl = self.program, self.program["player"]
        self.seed = seed
        self.rng = SplitMix64(seed)
        self.tick = 0
        self.px, self.py = pl["start_x"], pl["start_y"]
        self.health = pl["max_health"]
        self.invuln_until = 0
        self.boss_health = prog["boss"]["max_health"]
        self.phase_index = -1
        self.wave_index = 0
        self.next_wave_tick = 0
        self.bot_move = 0
        self.bot_next_decision = 0
        empty = np.zeros(0, dtype=np.int64)
        self.VX = self.VY = self.S = self.DEATH = self.PH = self.GR = empty
        self.pos_tick = 0  # the last tick whose motion step ran
        self._pos: tuple[np.ndarray, np.ndarray] | None = None
        self.safe_until = 0  # collisions cannot happen before this tick (see __init__)
        self.bot_clear_until = 0  # no bullet within the bot's reach before this tick
        self.min_death = 1 << 62
        self.spawned = 0
        self.hits = 0
        self.hit_ticks: list[int] = []
        self.grazes = 0
        self.peak = 0
        self.alive = 0
        self.frame_us: list[int] = []
        self.alive_per_second: list[int] = []
        self.state_hashes: list[str] = []
        self.stats = [PhaseStats(ph["phase_id"]) for ph in self.phases]
        self.status: str | None = None
        self.end_reason: str | None = None
        self.hit_this_tick = False

    # ------------------------------------------------------------------ the tick
    def step(self) -> bool:
        """Advance one tick; return True while the fight goes on."""
        if self.status is not None:
            raise RuntimeError("the run has ended; call reset(seed=...) to start another")
        prog, pl = self.program, self.program["player"]
        t = self.tick
        # 1. auto-fire
        fired = t % self.fire_interval == 0
        if fired:
            self.boss_health = max(0, self.boss_health - self.fire_damage)
        # 2. phase (health only changes on auto-fire ticks)
        idx = self.phase_index
        if fired:
            idx = phase_index_for(self.boss_health, self.boss_max_health, self.phases)
        if idx != self.phase_index:
            if self.phase_index >= 0:
                self.stats[self.phase_index].end_tick = t
            self.phase_index = idx
            self.wave_index = 0
            self.next_wave_tick = t
            self.stats[idx].start_tick = t
        # 3. motion: implicit. Every bullet starts at the boss, so after its k-th move it is at
        #    boss + k * v exactly (the same integers as k additions); positions are computed
        #    only when something looks at them.
        self.pos_tick = t
        self._pos = None
        # 4. expiry (stable compaction)
        if self.min_death <= t:
            keep = self.DEATH > t
            self._compact(keep)
        # 5. emission
        if t == self.next_wave_tick:
            self._emit(t)
            self.wave_index += 1
            self.next_wave_tick = t + self.phases[idx]["wave_interval_ticks"]
        # 6. player
        self._move_player(t)
        # 7. collisions and grazes
        checks = int(self.VX.size)
        self.hit_this_tick = False
        if checks and t >= self.safe_until:
            X, Y = self.positions()
            dx = X - self.px
            dy = Y - self.py
            d2 = dx * dx + dy * dy
            nearest = int(d2.min())
            gap = isqrt(nearest) - self.radius_bound - 1
            self.safe_until = t + 1 + (gap // self.closure if gap >= 0 else 0)
            if nearest <= self.graze_r2 or nearest <= self.hit_r2:
                touching = d2 <= self.hit_r2
                graze = (~touching) & (d2 <= self.graze_r2) & (self.GR == 0)
                n_graze = int(np.count_nonzero(graze))
                if n_graze:
                    self.GR[graze] = 1
                    self.grazes += n_graze
                    self.stats[idx].grazes += n_graze
                if touching.any():
                    if t >= self.invuln_until:
                        self.health -= 1
                        self.hits += 1
                        self.hit_ticks.append(t)
                        self.stats[idx].player_hits += 1
                        self.invuln_until = t + 1 + pl["invulnerability_ticks"]
                        self.hit_this_tick = True
                    self._compact(~touching)
        # 8. statistics
        alive = int(self.VX.size)
        self.alive = alive
        if alive > self.peak:
            self.peak = alive
        st = self.stats[idx]
        st.ticks += 1
        st.alive_tick_sum += alive
        if alive > st.peak_alive_bullets:
            st.peak_alive_bullets = alive
        fm = prog["frame_model"]
        self.frame_us.append(fm["fixed_us"] + fm["per_bullet_us"] * alive + fm["per_check_us"] * checks)
        if t % 60 == 0:
            self.alive_per_second.append(alive)
        elif alive > self.alive_per_second[-1]:
            self.alive_per_second[-1] = alive
        # 9. state hash
        if (t + 1) % prog["state_hash_interval"] == 0:
            self.state_hashes.append(self.state_hash())
        # 10. end conditions
        self.tick = t + 1
        if self.health <= 0:
            self.status, self.end_reason = "died", "player_died"
        elif self.boss_health == 0:
            self.status, self.end_reason = "completed", "boss_defeated"
        elif self.tick >= prog["duration_ticks"]:
            self.status, self.end_reason = "completed", "time_up"
        if self.status is not None:
            st.end_tick = self.tick
            return False
        return True

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """X, Y of every bullet after the motion step of tick ``pos_tick``."""
        if self._pos is None:
            age = self.pos_tick - self.S
            self._pos = (self.boss_x + self.VX * age, self.boss_y + self.VY * age)
        return self._pos

    @property
    def X(self) -> np.ndarray:
        return self.positions()[0]

    @property
    def Y(self) -> np.ndarray:
        return self.positions()[1]

    def _compact(self, keep: np.ndarray) -> None:
        self._pos = None
        self.S = self.S[keep]
        self.VX, self.VY = self.VX[keep], self.VY[keep]
        self.DEATH, self.PH, self.GR = self.DEATH[keep], self.PH[keep], self.GR[keep]
        self.min_death = int(self.DEATH.min()) if self.DEATH.size else 1 << 62

    def _emit(self, t: int) -> None:
        prog = self.program
        ph = self.phases[self.phase_index]
        offsets, speeds, signs = self._slot_arrays[self.phase_index]
        n = offsets.size
        bx, by = prog["boss"]["x"], prog["boss"]["y"]
        base = self.wave_index * ph["rotation_per_wave"] * signs + offsets
        if ph["aim"]:
            base = base + iatan2(self.py - by, self.px - bx)
        if PATTERNS[ph["pattern"]].draws:
            span = ph["scatter_span"]
            draws = np.array([self.rng.below(span) for _ in range(n)], dtype=np.int64)
            base = base + draws
        angles = base & 0xFFFF
        vx = (speeds * COS_TABLE[angles]) >> 16
        vy = (speeds * SIN_TABLE[angles]) >> 16
        life = ph["lifetime_ticks"]
        # Ticks until the bullet is beyond the despawn margin (it is removed in step 4 of
        # tick spawn + k, after its k-th move). Numerators are >= 0: the boss is inside.
        k = np.full(n, life, dtype=np.int64)
        for v, pos, margin in ((vx, bx, self.despawn_x), (vy, by, self.despawn_y)):
            pos_mask, neg_mask = v > 0, v < 0
            if pos_mask.any():
                k[pos_mask] = np.minimum(k[pos_mask], (margin - pos) // v[pos_mask] + 1)
            if neg_mask.any():
                k[neg_mask] = np.minimum(k[neg_mask], (margin + pos) // (-v[neg_mask]) + 1)
        death = t + k
        self._pos = None
        self.S = np.concatenate((self.S, np.full(n, t, dtype=np.int64)))
        self.VX = np.concatenate((self.VX, vx))
        self.VY = np.concatenate((self.VY, vy))
        self.DEATH = np.concatenate((self.DEATH, death))
        self.PH = np.concatenate((self.PH, np.full(n, self.phase_index, dtype=np.int64)))
        self.GR = np.concatenate((self.GR, np.zeros(n, dtype=np.int64)))
        self.min_death = min(self.min_death, int(death.min()))
        self.spawned += n
        self.stats[self.phase_index].bullets_spawned += n
        # New bullets start at the boss: bound how soon they can reach the player, who may
        # still move this tick (step 6) before collisions (step 7).
        gap = isqrt((bx - self.px) ** 2 + (by - self.py) ** 2) - self.player_step_max - self.radius_bound - 1
        self.safe_until = min(self.safe_until, t + 1 + gap // self.closure if gap >= 0 else t)
        if self.kind == "bot":
            gap = (isqrt((bx - self.px) ** 2 + (by - self.py) ** 2) - self.player_step_max
                   - self.bot_reach - 1)
            self.bot_clear_until = min(self.bot_clear_until, t + 1 + gap // self.closure if gap >= 0 else t)

    # ------------------------------------------------------------------ players
    def _move_player(self, t: int) -> None:
        pl = self.program["player"]
        if self.kind == "scripted":
            sc = self.program["scripted"]
            ax = (t * sc["rate_x"]) >> 16
            ay = (t * sc["rate_y"]) >> 16
            x = (SIN_LIST[ax & ANGLE_MASK] * sc["amp_x"]) >> 16
            y = pl["start_y"] + ((SIN_LIST[ay & ANGLE_MASK] * sc["amp_y"]) >> 16)
            self.px = min(max(x, -self.hw), self.hw)
            self.py = min(max(y, -self.hh), self.hh)
            return
        if self.kind == "bot":
            if t >= self.bot_next_decision:
                self.bot_move = self._bot_decide()
                self.bot_next_decision = t + self.reaction
            sx, sy = int(self.bot_step_x[self.bot_move]), int(self.bot_step_y[self.bot_move])
        else:
            dx, dy, focus = self.trace[t] if t < len(self.trace) else (0, 0, 0)
            speed = pl["focus_speed"] if focus else pl["speed"]
            if dx and dy:
                speed = (speed * DIAGONAL_Q16) >> 16
            sx, sy = dx * speed, dy * speed
        self.px = min(max(self.px + sx, -self.hw), self.hw)
        self.py = min(max(self.py + sy, -self.hh), self.hh)

    def _bot_decide(self) -> int:
        """Score the 18 candidate moves at two look-ahead samples at once (shape 2 x 18)."""
        best = self._bot_best()
        if (self.rng.next_u64() >> 32) < self.mistake_threshold:
            best = self.rng.below(18)
        return best

    def _bot_best(self) -> int:
        t = self.pos_tick
        near = None
        if self.VX.size and t >= self.bot_clear_until:
            X, Y = self.positions()
            d2 = X - self.px
            d2 *= d2
            dy = Y - self.py
            dy *= dy
            d2 += dy
            near = np.flatnonzero(d2 < self.bot_reach2)
            if near.size == 0:
                # Nobody is within reach: nobody can be for the next few ticks either.
                gap = isqrt(int(d2.min())) - self.bot_reach - 1
                self.bot_clear_until = t + 1 + (gap // self.closure if gap >= 0 else 0)
                near = None
        if near is None:
            # Only the home penalty decides, which depends on the position alone.
            key = (self.px, self.py)
            best = self._bot_home_cache.get(key)
            if best is None:
                cx = np.minimum(np.maximum(self.px + self.bot_step_x * self.look, -self.hw), self.hw)
                cy = np.minimum(np.maximum(self.py + self.bot_step_y * self.look, -self.hh), self.hh)
                hx, hy = cx - self.home_x, cy - self.home_y
                best = int(np.argmax(self.clearance_cap - ((hx * hx + hy * hy) >> self.home_shift)))
                if len(self._bot_home_cache) < 65536:
                    self._bot_home_cache[key] = best
            return best
        horizons = self.bot_horizons
        cx = np.minimum(np.maximum(self.bot_reach_x + self.px, -self.hw), self.hw)
        cy = np.minimum(np.maximum(self.bot_reach_y + self.py, -self.hh), self.hh)
        bx = X[near] + self.VX[near] * horizons  # (4, m)
        by = Y[near] + self.VY[near] * horizons
        ddx = bx[:, None, :] - cx[:, :, None]  # (4, 18, m)
        ddy = by[:, None, :] - cy[:, :, None]
        ddx *= ddx
        ddy *= ddy
        ddx += ddy
        clear = np.minimum(ddx.min(axis=(0, 2)), self.clearance_cap)
        hx, hy = cx[-1] - self.home_x, cy[-1] - self.home_y
        return int(np.argmax(clear - ((hx * hx + hy * hy) >> self.home_shift)))

    # ------------------------------------------------------------------ hashing
    def state_hash(self) -> str:
        header = np.array([
            self.tick, self.px, self.py, self.health, self.invuln_until, self.boss_health,
            self.phase_index, self.wave_index, self.next_wave_tick, _signed64(self.rng.state),
            self.bot_move, self.bot_next_decision, self.spawned, self.hits, self.grazes,
            int(self.VX.size),
        ], dtype="<i8")
        h = hashlib.sha256(header.tobytes())
        for arr in (self.X, self.Y, self.VX, self.VY, self.DEATH, self.PH, self.GR):
            h.update(arr.astype("<i8", copy=False).tobytes())
        return h.hexdigest()

    def snapshot(self) -> Snapshot:
        return Snapshot(self.tick - 1, self.phase_index, self.px, self.py,
                        self.tick - 1 < self.invuln_until, self.boss_health, self.hit_this_tick,
                        self.X.copy(), self.Y.copy(), self.PH.copy())

    # ------------------------------------------------------------------ whole runs
    def run(self, *, seed: int, capture_ticks: tuple[int, ...] = ()) -> RunResult:
        self.reset(seed=seed)
        wanted = set(capture_ticks)
        snapshots: list[Snapshot] = []
        while self.step():
            if self.tick - 1 in wanted:
                snapshots.append(self.snapshot())
        if self.tick - 1 in wanted:
            snapshots.append(self.snapshot())
        return RunResult(self.telemetry(), snapshots)

    def snapshots_at(self, *, seed: int, ticks: Iterable[int]) -> dict[int, Snapshot]:
        """The arena at each of ``ticks`` that the fight reaches, from one run that stops at the
        last of them (the same states ``run(capture_ticks=...)`` captures)."""
        wanted = set(ticks)
        out: dict[int, Snapshot] = {}
        if not wanted:
            return out
        last = max(wanted)
        self.reset(seed=seed)
        while True:
            more = self.step()
            if self.tick - 1 in wanted:
                out[self.tick - 1] = self.snapshot()
            if not more or self.tick - 1 >= last:
                return out

    def telemetry(self) -> dict[str, Any]:
        return build_telemetry(self)

    @property
    def player_label(self) -> str:
        return player_label(self.player_spec)
