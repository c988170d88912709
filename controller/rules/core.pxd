# Cython's types for core.py in the opt-in compiled build (FAIRYBOARD_COMPILE=1, setup.py);
# plain Python never reads this file.  Position becomes an extension type: its fields are
# C struct members (the side to move and the move counters C integers), and push/pop,
# called for every move the engine makes and takes back, read them in C.
cimport cython

cdef class Position:
    cdef public object game, geometry
    cdef public list board, hands, reserves, moves, keys, _log, _marks
    cdef public dict tokens, state
    cdef public long turn, halfmove, fullmove

    cpdef put(self, long cell, piece)

    @cython.locals(record=bint)
    cpdef push(self, move, bint record=*)

    @cython.locals(mark=Py_ssize_t, what=long, log=list, board=list, state=dict,
                   record=bint)
    cpdef pop(self)
