# Cython's types for search.py in the opt-in compiled build (FAIRYBOARD_COMPILE=1,
# setup.py); plain Python never reads this file.  Search becomes an extension type: its
# counters and scores are C integers (scores stay far inside a C long: INF is 10**7),
# its hot methods are called in C (quiescence's table lookup too, not its search of a
# position: Cython's cpdef takes no closures, and that has a generator and a lambda);
# any attribute not declared here lives in its __dict__ as before, and a Python
# subclass still overrides any method.
cimport cython

cdef class Search:
    cdef dict __dict__
    cdef public object game, opponents, clock, evaluator, rng, report
    cdef public bint _multi, _brs, _mate_only, _exposed
    cdef public dict table, history, _evals, _ends, _checks, _partial_scores
    cdef public list killers
    cdef public long nodes, root, table_size, _check_every, _evals_for, _extend_below
    cdef public object _deadline, _max_nodes, _stop, _partial

    cpdef _tick(self)
    cpdef long _step(self, pos, long mover) except? -1
    cpdef long _static(self, pos, in_check=*, key=*) except? -1
    cpdef bint _checked(self, pos, key=*) except -1
    cpdef long _terminal(self, pos, long ply, outcome=*) except? -1
    cpdef _key(self, pos)
    cpdef bint _repeated(self, pos) except -1

    @cython.locals(depth=long, alpha=long, beta=long, ply=long, score=long, best=long,
                   a0=long, b0=long, i=Py_ssize_t, searched=long, reduce=long, child=long,
                   reduced=long, mover=long, e_depth=long, flag=long, e_score=long,
                   maximising=bint, in_check=bint, pv=bint, calm=bint, futile=bint,
                   quiet=bint, late=bint, gives_check=bint)
    cpdef long _node(self, pos, long depth, long alpha, long beta, long ply,
                     bint may_pass=*, bint rolled=*) except? -1

    @cython.locals(score=long, flag=long)
    cpdef long _quiesce(self, pos, long alpha, long beta, long ply, long left,
                        list moves=*, bint in_check=*, bint counted=*,
                        bint rolled=*) except? -1

    @cython.locals(best=long, score=long, mover=long)
    cpdef long _evasions(self, pos, list moves, long alpha, long beta, long ply, long left,
                         bint maximising) except? -1

    @cython.locals(total=long, n=Py_ssize_t, i=Py_ssize_t, a=long, b=long, score=long)
    cpdef long _chance(self, pos, list rolls, long depth, long ply, long alpha=*,
                       long beta=*) except? -1

    @cython.locals(j=Py_ssize_t, probe=long)
    cpdef bint _prove(self, pos, list rolls, Py_ssize_t start, long depth, long ply,
                      list hi, list lo, list sure_hi, list sure_lo, bint upper) except -1

    cpdef long _face(self, pos, roll, long depth, long alpha, long beta,
                     long ply) except? -1

    @cython.locals(taken=long, worth=long, own=long)
    cpdef long _taken(self, pos, move) except? -1

    @cython.locals(taken=long, worth=long, own=long, cost=long)
    cpdef long _gain(self, pos, move) except? -1

    cpdef _store(self, key, long depth, long flag, long score, move, long ply)

    cpdef long _to_table(self, long score, long ply) except? -1
    cpdef long _from_table(self, long score, long ply) except? -1
