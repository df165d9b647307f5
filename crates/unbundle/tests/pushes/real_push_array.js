// expect: 0 2
// webpack 4's vendors chunk: an array of modules with a hole; module 2 is required by the
// main chunk, not here, and is taken all the same.
(window.webpackJsonp=window.webpackJsonp||[]).push([[1],[function(t,e,n){t.exports=1},,function(t,e,n){t.exports=n(0)+1}]]);
