"""What an unrolled loop costs as its count grows: ops, trace and call time per value, a fit."""
