function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fbf7ee");
  brush.noStroke();
  brush.fill("#a3b18a", 90);
  brush.fillBleed(0.3);
  brush.rect(0, 470, 600, 130);
  brush.set("charcoal", "#5e3b1f", 4);
  brush.line(300, 520, 300, 330);
  brush.line(300, 400, 240, 330);
  brush.line(300, 380, 370, 320);
  brush.noStroke();
  brush.mass("2B", "#386641", { precision: 0.6, strength: 0.8 });
  brush.circle(300, 250, 130, 0.5);
  brush.noMass();
  brush.fill("#6a994e", 100);
  brush.fillTexture(0.5, 0.5);
  brush.circle(240, 230, 70, 0.4);
  brush.circle(360, 220, 80, 0.4);
}
