"""Cost of a run in steps and of a Gymnasium episode against one call, on pertlab/CongestionControl-v0's
scenario (20 Mbit/s, 40 ms, 5 flows, 30 s; 100 ms steps): medians of five alternated rounds.
Run: .venv/bin/python scripts/bench_steps.py (figures in BENCHMARKS.md, "Runs in steps")."""
import time, numpy as np, pertlab, gymnasium, pertlab.gym
env = gymnasium.make("pertlab/CongestionControl-v0").unwrapped
s = env.scenario
def plain():
    t=time.perf_counter(); r=pertlab.run(s); return time.perf_counter()-t, r.summary["events"]
def stepped():
    t=time.perf_counter(); sim=pertlab.Simulation(s); n=0
    while not sim.run_until(sim.now+0.1): n+=1
    sim.results(); return time.perf_counter()-t, n
def episode():
    t=time.perf_counter(); env.reset(seed=1); n=0; a=np.ones(1,dtype=np.float32)
    while True:
        _,_,term,_,_=env.step(a); n+=1
        if term: break
    return time.perf_counter()-t, n
res={"plain":[], "stepped":[], "episode":[]}
for _ in range(5):
    for k,f in (("plain",plain),("stepped",stepped),("episode",episode)):
        res[k].append(f())
for k,v in res.items():
    print(k, "median s", round(float(np.median([x[0] for x in v])),3), "n", v[0][1])
