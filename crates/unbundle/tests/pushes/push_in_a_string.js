// expect: 0 2
// A real webpack 4 chunk whose modules hold a push in a string, in a template and in a comment.
(window.webpackJsonp=window.webpackJsonp||[]).push([[2],[function(t,e,n){/* (window.webpackJsonp=[]).push([[3],{9:function(a,b,c){}}]) */t.exports="(window.webpackJsonp=[]).push([[4],{8:function(a,b,c){}}])"},,function(t,e,n){t.exports=`x.push([[5],{7:function(a,b,c){}}])`+n(0)}]]);
