//! Writes refused anywhere in a device's stack, walked down (loop backing, dm/md slaves) and up; fills checked against free space.
